// SPDX-License-Identifier: GPL-3.0-or-later

/// The fields of a transaction payload to sign for testing (`tipledger testkit transaction`),
/// written with Apple's field names and types.
public struct TestTransaction: Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var bundleId: String
    public var productId: String
    /// Apple's product type name, "Consumable" for tips.
    public var type = ProductType.consumable.rawValue
    public var quantity: Int32 = 1
    /// Line total in milliunits of `currency` (9990 = 9.99), already multiplied by `quantity`.
    public var price: Int64
    public var currency: String
    /// ISO 3166-1 alpha-3 storefront, e.g. "USA".
    public var storefront: String
    public var storefrontId: String
    public var environment: String
    /// Milliseconds since 1970.
    public var purchaseDate: Int64
    /// Milliseconds since 1970; defaults to `purchaseDate`.
    public var signedDate: Int64
    /// Leaves `signedDate` out of the payload, as some of Apple's older payloads do.
    public var omitsSignedDate = false
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var inAppOwnershipType = InAppOwnershipType.purchased.rawValue
    public var transactionReason = "PURCHASE"
    public var revocationDate: Int64?
    public var revocationReason: Int32?
    public var revocationType: String?
    public var revocationPercentage: Int32?

    public init(
        transactionId: String, bundleId: String, productId: String, price: Int64, currency: String,
        storefront: String = "USA", storefrontId: String = "143441", environment: String, purchaseDate: Int64,
        appAccountToken: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = transactionId
        self.bundleId = bundleId
        self.productId = productId
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.signedDate = purchaseDate
        self.appAccountToken = appAccountToken
    }

    /// The payload as JSON bytes, fields in the order the App Store writes them.
    public var payloadJSON: [UInt8] {
        var writer = JSONWriter()
        writer.object { payload in
            payload.field("transactionId", transactionId)
            payload.field("originalTransactionId", originalTransactionId)
            payload.field("bundleId", bundleId)
            payload.field("productId", productId)
            payload.field("purchaseDate", purchaseDate)
            payload.field("originalPurchaseDate", purchaseDate)
            payload.field("quantity", Int64(quantity))
            payload.field("type", type)
            payload.optionalField("appAccountToken", appAccountToken)
            payload.field("inAppOwnershipType", inAppOwnershipType)
            if !omitsSignedDate { payload.field("signedDate", signedDate) }
            payload.optionalField("revocationReason", revocationReason.map(Int64.init))
            payload.optionalField("revocationDate", revocationDate)
            payload.optionalField("revocationType", revocationType)
            payload.optionalField("revocationPercentage", revocationPercentage.map(Int64.init))
            payload.field("environment", environment)
            payload.field("transactionReason", transactionReason)
            payload.field("storefront", storefront)
            payload.field("storefrontId", storefrontId)
            payload.field("price", price)
            payload.field("currency", currency)
            payload.optionalField("appTransactionId", appTransactionId)
        }
        return writer.bytes
    }
}

extension TestTransaction {
    /// The fields of an already signed transaction, read without verifying it, so testkit can
    /// re-sign it with changes (a refund's revocation fields, a newer signedDate). Never use
    /// the result as proof of anything.
    public init(resigning token: String) throws(VerificationError) {
        let members = try UnverifiedJWS.parse(token).payload
        let payload: JWSTransactionDecodedPayload
        do {
            payload = try JWSTransactionDecodedPayload(PayloadReader(members))
        } catch {
            throw VerificationError(.invalidPayload, error.description)
        }
        guard let id = payload.transactionId, let bundleId = payload.bundleId, let productId = payload.productId,
            let environment = payload.rawEnvironment
        else {
            throw VerificationError(
                .invalidPayload, "the transaction lacks transactionId, bundleId, productId or environment")
        }
        self.init(
            transactionId: id, bundleId: bundleId, productId: productId, price: payload.price ?? 0,
            currency: payload.currency ?? "USD", storefront: payload.storefront ?? "USA",
            storefrontId: payload.storefrontId ?? "143441", environment: environment,
            purchaseDate: payload.purchaseDate?.wholeMilliseconds ?? 0, appAccountToken: payload.appAccountToken)
        originalTransactionId = payload.originalTransactionId ?? id
        signedDate = payload.signedDate?.wholeMilliseconds ?? purchaseDate
        quantity = payload.quantity ?? 1
        type = payload.rawType ?? type
        appTransactionId = payload.appTransactionId
        inAppOwnershipType = payload.rawInAppOwnershipType ?? inAppOwnershipType
        revocationDate = payload.revocationDate?.wholeMilliseconds
        revocationReason = payload.rawRevocationReason
        revocationType = payload.rawRevocationType
        revocationPercentage = payload.revocationPercentage
    }
}

extension TestTransaction {
    /// Changes the fields to what the App Store's copy of the transaction says when it sends a
    /// notification of `type` at `signedDate`: a REFUND adds the revocation fields (prorated when
    /// `revocationPercentage`, in milliunits, is given), a REVOKE the Family Sharing ones, a
    /// REFUND_REVERSED removes them; every copy is signed anew at `signedDate`.
    public mutating func adjust(
        for type: String, signedDate: Int64, revocationReason: Int32 = 0, revocationPercentage: Int32? = nil
    ) {
        self.signedDate = signedDate
        switch NotificationType(rawValue: type) {
        case .refund:
            revocationDate = signedDate
            self.revocationReason = revocationReason
            revocationType =
                revocationPercentage == nil
                ? RevocationType.refundFull.rawValue : RevocationType.refundProrated.rawValue
            self.revocationPercentage = revocationPercentage
        case .revoke:
            revocationDate = signedDate
            self.revocationReason = revocationReason
            revocationType = RevocationType.familyRevoke.rawValue
            inAppOwnershipType = InAppOwnershipType.familyShared.rawValue
        case .refundReversed:
            revocationDate = nil
            self.revocationReason = nil
            revocationType = nil
            self.revocationPercentage = nil
        default:
            break
        }
    }
}
