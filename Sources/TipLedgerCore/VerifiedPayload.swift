// SPDX-License-Identifier: GPL-3.0-or-later

/// What kind of App Store payload a JWS carries.
public enum PayloadKind: String, Sendable, CaseIterable {
    case transaction
    case notification
    case renewalInfo
    case appTransaction

    /// The kind in words, with its article: "a signed transaction".
    var phrase: String {
        switch self {
        case .transaction: "a signed transaction"
        case .notification: "a notification"
        case .renewalInfo: "a renewal info"
        case .appTransaction: "an app transaction"
        }
    }

    /// The kind a decoded payload shows by its fields, or nil when it shows none.
    static func detect(_ payload: JSONObject) -> PayloadKind? {
        if payload.value(named: "notificationType") != nil { return .notification }
        if payload.value(named: "transactionId") != nil { return .transaction }
        if payload.value(named: "autoRenewStatus") != nil || payload.value(named: "autoRenewProductId") != nil {
            return .renewalInfo
        }
        if payload.value(named: "receiptType") != nil { return .appTransaction }
        return nil
    }
}

/// A payload that passed every check of the verifier. Only `Verifier` creates these.
public enum VerifiedPayload: Sendable {
    case transaction(VerifiedTransaction)
    case notification(VerifiedNotification)
    case renewalInfo(VerifiedRenewalInfo)
    case appTransaction(VerifiedAppTransaction)

    public var kind: PayloadKind {
        switch self {
        case .transaction: .transaction
        case .notification: .notification
        case .renewalInfo: .renewalInfo
        case .appTransaction: .appTransaction
        }
    }

    /// The bundle id the payload names (renewal infos name none).
    public var bundleId: String? {
        switch self {
        case .transaction(let value): value.payload.bundleId
        case .notification(let value): value.payload.claimedIdentity.bundleId
        case .renewalInfo: nil
        case .appTransaction(let value): value.payload.bundleId
        }
    }

    public var transaction: VerifiedTransaction? {
        if case .transaction(let value) = self { value } else { nil }
    }

    public var renewalInfo: VerifiedRenewalInfo? {
        if case .renewalInfo(let value) = self { value } else { nil }
    }

    public var appTransaction: VerifiedAppTransaction? {
        if case .appTransaction(let value) = self { value } else { nil }
    }

    /// The environment the payload was verified for.
    public var environment: AppStoreEnvironment {
        switch self {
        case .transaction(let value): value.environment
        case .notification(let value): value.environment
        case .renewalInfo(let value): value.environment
        case .appTransaction(let value): value.environment
        }
    }
}

/// How a payload was verified: which trust store and policy, and whether the time came from the
/// clock. Two verifications with the same fingerprint of a payload that did not use the clock
/// give the same verdict, which lets the ledger answer an exact repeat without redoing them.
public struct VerificationContext: Sendable, Equatable {
    /// `Verifier.fingerprint` of the verifier that accepted the payload.
    public let verifierFingerprint: [UInt8]
    /// Whether some part lacked a `signedDate` (or `receiptCreationDate`) and was checked at the
    /// clock's time instead, so a later check could differ.
    public let usedClock: Bool
}

/// A signed payload whose signature, chain and identity were verified, with the token that
/// proved it.
public final class Verified<Payload: Sendable>: Sendable {
    public let payload: Payload
    /// The signed JWS exactly as received, with its digests: the evidence, re-verifiable offline.
    public let evidence: TokenEvidence
    public let environment: AppStoreEnvironment
    /// The time the chain was checked at: the payload's signing date, or the clock when it had
    /// none.
    public let effectiveDate: AppleDate
    public let context: VerificationContext

    init(
        payload: Payload, evidence: TokenEvidence, environment: AppStoreEnvironment, effectiveDate: AppleDate,
        context: VerificationContext
    ) {
        self.payload = payload
        self.evidence = evidence
        self.environment = environment
        self.effectiveDate = effectiveDate
        self.context = context
    }

    /// The signed JWS exactly as received.
    public var jws: String { evidence.token }
}

/// A signed transaction, verified.
public typealias VerifiedTransaction = Verified<JWSTransactionDecodedPayload>
/// Signed renewal information, verified.
public typealias VerifiedRenewalInfo = Verified<JWSRenewalInfoDecodedPayload>
/// A signed app transaction, verified.
public typealias VerifiedAppTransaction = Verified<AppTransaction>

extension Verified where Payload == JWSTransactionDecodedPayload {
    /// The transaction's id. Apple's model allows it to be absent (some mock data has none);
    /// the ledger refuses to record such a transaction.
    public var transactionId: String? { payload.transactionId }
}

/// A signed notification whose signature, chain, identity and nested signed payloads were
/// all verified.
public final class VerifiedNotification: Sendable {
    public let payload: ResponseBodyV2DecodedPayload
    /// The `signedPayload` JWS exactly as received, with its digests.
    public let evidence: TokenEvidence
    public let environment: AppStoreEnvironment
    public let effectiveDate: AppleDate
    /// For the notification and everything nested in it.
    public let context: VerificationContext
    public let notificationUUID: String
    public let rawNotificationType: String
    /// `data.signedTransactionInfo`, verified, when present.
    public let transaction: VerifiedTransaction?
    /// `data.signedRenewalInfo`, verified, when present.
    public let renewalInfo: VerifiedRenewalInfo?
    /// `appData.signedAppTransactionInfo`, verified, when present.
    public let appTransaction: VerifiedAppTransaction?

    init(
        payload: ResponseBodyV2DecodedPayload, evidence: TokenEvidence, environment: AppStoreEnvironment,
        effectiveDate: AppleDate, context: VerificationContext, notificationUUID: String, rawNotificationType: String,
        transaction: VerifiedTransaction?, renewalInfo: VerifiedRenewalInfo?, appTransaction: VerifiedAppTransaction?
    ) {
        self.payload = payload
        self.evidence = evidence
        self.environment = environment
        self.effectiveDate = effectiveDate
        self.context = context
        self.notificationUUID = notificationUUID
        self.rawNotificationType = rawNotificationType
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }

    /// The `signedPayload` JWS exactly as received.
    public var jws: String { evidence.token }
}
