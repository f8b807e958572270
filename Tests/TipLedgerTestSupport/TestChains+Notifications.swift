// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerCrypto

extension TestChains {
    /// The app's Apple id that `verifier(...)` expects and signed notifications carry.
    public static let appAppleId: Int64 = 1_234_567_890

    /// A verifier trusting `standard`, accepting Sandbox and Production for `com.example.tips`,
    /// made once per process so its chain cache is shared by every test.
    public static let standardVerifier: Verifier = {
        do {
            return try verifier()
        } catch {
            preconditionFailure("cannot make the standard verifier: \(error)")
        }
    }()

    /// `token` verified by `verifier` (the standard one by default): the only way a test gets a
    /// `VerifiedPayload`.
    public static func verified(_ token: String, by verifier: Verifier = standardVerifier) throws(VerificationError)
        -> VerifiedPayload
    {
        try verifier.verifyPayload(token, as: nil)
    }

    /// A signed App Store Server Notification V2 (the `signedPayload` JWS, not the webhook body)
    /// of `type`, as `tipledger testkit notification` signs it.
    ///
    /// When `transaction` (a signed transaction) is given, its fields are re-signed into
    /// `data.signedTransactionInfo` as the App Store's copy at `signedDate`: a REFUND gains the
    /// revocation fields (prorated when `revocationPercentage` is set), a REVOKE the Family
    /// Sharing ones, a REFUND_REVERSED loses them; `edit` may change the copy further. The
    /// notification takes the transaction's environment and bundle id, else `environment` and
    /// `bundleId`.
    public static func notification(
        type: String, subtype: String? = nil, uuid: String, signedDate: Int64 = referenceMilliseconds,
        around transaction: String? = nil, pki: TestPKI = standard, environment: String = "Sandbox",
        bundleId: String = "com.example.tips", revocationReason: Int32 = 0, revocationPercentage: Int32? = nil,
        consumptionReason: String = "UNINTENDED_PURCHASE", omitsSignedDate: Bool = false,
        edit: (inout TestTransaction) -> Void = { _ in }
    ) throws -> String {
        let signer = JWSSigner(pki: pki)
        var notification = TestNotification(
            notificationType: type, subtype: subtype, notificationUUID: uuid, signedDate: signedDate,
            environment: environment, bundleId: bundleId, appAppleId: appAppleId)
        notification.omitsSignedDate = omitsSignedDate
        if let transaction {
            var fields = try TestTransaction(resigning: transaction)
            fields.adjust(
                for: type, signedDate: signedDate, revocationReason: revocationReason,
                revocationPercentage: revocationPercentage)
            edit(&fields)
            notification.environment = fields.environment
            notification.bundleId = fields.bundleId
            notification.signedTransactionInfo = try signer.sign(payload: fields.payloadJSON)
            if type == NotificationType.consumptionRequest.rawValue {
                notification.consumptionRequestReason = consumptionReason
            }
        }
        return try signer.sign(payload: notification.payloadJSON)
    }

    /// A version 4 UUID in lowercase text whose last digits are `number`, so tests can name
    /// notifications readably.
    public static func uuid(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        return "6f1d2c3b-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}
