// SPDX-License-Identifier: GPL-3.0-or-later

/// The payload of a signed transaction, with Apple's field names.
///
/// Every field is optional, as in Apple's model; enum-valued fields keep the raw value so that
/// values Apple adds later survive, with typed accessors derived from them.
/// See https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload
public struct JWSTransactionDecodedPayload: Sendable, Equatable {
    public let originalTransactionId: String?
    public let transactionId: String?
    public let webOrderLineItemId: String?
    public let bundleId: String?
    public let productId: String?
    public let subscriptionGroupIdentifier: String?
    public let purchaseDate: AppleDate?
    public let originalPurchaseDate: AppleDate?
    public let expiresDate: AppleDate?
    public let quantity: Int32?
    /// Raw `type`: "Consumable", "Non-Consumable", "Auto-Renewable Subscription", ...
    public let rawType: String?
    /// The UUID the app set with `Product.PurchaseOption.appAccountToken`, as signed.
    public let appAccountToken: String?
    /// Raw `inAppOwnershipType`: "PURCHASED" or "FAMILY_SHARED".
    public let rawInAppOwnershipType: String?
    public let signedDate: AppleDate?
    /// Raw `revocationReason`: 0 other, 1 an app issue.
    public let rawRevocationReason: Int32?
    public let revocationDate: AppleDate?
    public let isUpgraded: Bool?
    /// Raw `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public let rawOfferType: Int32?
    public let offerIdentifier: String?
    /// Raw `environment`: "Production", "Sandbox", "Xcode", "LocalTesting".
    public let rawEnvironment: String?
    public let storefront: String?
    public let storefrontId: String?
    /// Raw `transactionReason`: "PURCHASE" or "RENEWAL".
    public let rawTransactionReason: String?
    /// ISO 4217 currency of `price`.
    public let currency: String?
    /// Price of the whole purchase (all of `quantity`) in milliunits of `currency`: 9990 = 9.99.
    public let price: Int64?
    public let rawOfferDiscountType: String?
    public let appTransactionId: String?
    public let offerPeriod: String?
    /// Raw `revocationType`: "REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE".
    public let rawRevocationType: String?
    /// Share refunded by a prorated refund, in milliunits of a whole: 50000 = 50 %.
    public let revocationPercentage: Int32?
    public let rawBillingPlanType: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        originalTransactionId = try reader.string("originalTransactionId")
        transactionId = try reader.string("transactionId")
        webOrderLineItemId = try reader.string("webOrderLineItemId")
        bundleId = try reader.string("bundleId")
        productId = try reader.string("productId")
        subscriptionGroupIdentifier = try reader.string("subscriptionGroupIdentifier")
        purchaseDate = try reader.date("purchaseDate")
        originalPurchaseDate = try reader.date("originalPurchaseDate")
        expiresDate = try reader.date("expiresDate")
        quantity = try reader.int32("quantity")
        rawType = try reader.string("type")
        appAccountToken = try reader.uuid("appAccountToken")
        rawInAppOwnershipType = try reader.string("inAppOwnershipType")
        signedDate = try reader.date("signedDate")
        rawRevocationReason = try reader.int32("revocationReason")
        revocationDate = try reader.date("revocationDate")
        isUpgraded = try reader.bool("isUpgraded")
        rawOfferType = try reader.int32("offerType")
        offerIdentifier = try reader.string("offerIdentifier")
        rawEnvironment = try reader.string("environment")
        storefront = try reader.string("storefront")
        storefrontId = try reader.string("storefrontId")
        rawTransactionReason = try reader.string("transactionReason")
        currency = try reader.currency("currency")
        price = try reader.int64("price")
        rawOfferDiscountType = try reader.string("offerDiscountType")
        appTransactionId = try reader.string("appTransactionId")
        offerPeriod = try reader.string("offerPeriod")
        rawRevocationType = try reader.string("revocationType")
        revocationPercentage = try reader.int32("revocationPercentage")
        rawBillingPlanType = try reader.string("billingPlanType")
    }

    /// Whether `code` has the shape of an ISO 4217 currency code, three uppercase ASCII
    /// letters (`USD`), as every App Store price's currency has.
    public static func isCurrencyCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (0x41...0x5a).contains($0) }
    }

    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
    public var type: ProductType? { rawType.flatMap(ProductType.init(rawValue:)) }
    public var revocationType: RevocationType? { rawRevocationType.flatMap(RevocationType.init(rawValue:)) }
    public var inAppOwnershipType: InAppOwnershipType? {
        rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }
}

/// The kind of in-app product. https://developer.apple.com/documentation/appstoreserverapi/type
public enum ProductType: String, Sendable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}

/// How a transaction was revoked. https://developer.apple.com/documentation/appstoreserverapi/revocationtype
public enum RevocationType: String, Sendable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"
}

/// Whether the customer bought the product or has it through Family Sharing.
public enum InAppOwnershipType: String, Sendable {
    case purchased = "PURCHASED"
    case familyShared = "FAMILY_SHARED"
}
