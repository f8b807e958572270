// SPDX-License-Identifier: GPL-3.0-or-later

/// Step 9 of docs/verification.md, for notifications: an id and a type, and every signed
/// payload nested in it verified (steps 1–8 again) for the same app and environment.
struct NotificationCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        // Asked first: matching the model copies it.
        guard token.kind == .notification, case .notification(let payload)? = token.model else { return }
        guard let environment = token.environment else {
            preconditionFailure("a notification's payloads are checked after its identity")
        }
        guard let uuid = payload.notificationUUID, let type = payload.rawNotificationType else {
            throw VerificationError(.invalidPayload, "the notification has no notificationUUID or notificationType")
        }
        let bundleId = payload.claimedIdentity.bundleId
        func nested(_ token: String?, _ field: String, as kind: PayloadKind) throws(VerificationError)
            -> VerifiedPayload?
        {
            try Self.nested(token, field, as: kind, environment, bundleId, by: verifier)
        }
        token.notification = NotificationContent(
            uuid: uuid, rawType: type,
            transaction: try nested(
                payload.data?.signedTransactionInfo, "data.signedTransactionInfo", as: .transaction)?
                .transaction,
            renewalInfo: try nested(payload.data?.signedRenewalInfo, "data.signedRenewalInfo", as: .renewalInfo)?
                .renewalInfo,
            appTransaction: try nested(
                payload.appData?.signedAppTransactionInfo, "appData.signedAppTransactionInfo", as: .appTransaction)?
                .appTransaction)
    }

    /// Verifies a signed payload nested in a notification; it must be for the same app and
    /// environment as the notification around it.
    private static func nested(
        _ token: String?, _ field: String, as kind: PayloadKind, _ environment: AppStoreEnvironment,
        _ bundleId: String?, by verifier: Verifier
    ) throws(VerificationError) -> VerifiedPayload? {
        guard let token else { return nil }
        let verified: VerifiedPayload
        do {
            verified = try verifier.verifyPayload(token, as: kind)
        } catch {
            throw error.within(field)
        }
        if let nestedBundleId = verified.bundleId, nestedBundleId != bundleId {
            throw VerificationError(
                .wrongBundleId,
                "\(field): bundleId \(nestedBundleId) differs from the notification's \(bundleId ?? "none")")
        }
        if verified.environment != environment {
            throw VerificationError(
                .wrongEnvironment,
                "\(field): environment \(verified.environment.rawValue) differs from the notification's \(environment.rawValue)"
            )
        }
        return verified
    }
}
