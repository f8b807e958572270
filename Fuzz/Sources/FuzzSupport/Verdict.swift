// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// What verifying one line concluded, in a form two verifications can be compared in: every
/// decoded field, the token, the environment, the time and the context of an accepted payload
/// (and of each one nested in it), or a rejection's code and message.
public struct Verdict: Equatable, CustomStringConvertible {
    private let outcome: Outcome

    fileprivate enum Outcome: Equatable {
        case accepted(Accepted)
        case rejected(code: VerificationError.Code, message: String)
    }

    fileprivate struct Accepted: Equatable {
        let kind: PayloadKind
        let jws: String
        let environment: AppStoreEnvironment
        let effectiveDate: AppleDate
        let context: VerificationContext
        let transaction: JWSTransactionDecodedPayload?
        let notification: ResponseBodyV2DecodedPayload?
        let renewalInfo: JWSRenewalInfoDecodedPayload?
        let appTransaction: AppTransaction?
        let nested: [Accepted]
    }

    public init(_ result: Result<VerifiedPayload, VerificationError>) {
        switch result {
        case .success(let payload): outcome = .accepted(Verdict.accepted(payload))
        case .failure(let error): outcome = .rejected(code: error.code, message: error.message)
        }
    }

    private static func accepted(_ payload: VerifiedPayload) -> Accepted {
        switch payload {
        case .transaction(let verified):
            Accepted(verified, kind: .transaction, transaction: verified.payload)
        case .renewalInfo(let verified):
            Accepted(verified, kind: .renewalInfo, renewalInfo: verified.payload)
        case .appTransaction(let verified):
            Accepted(verified, kind: .appTransaction, appTransaction: verified.payload)
        case .notification(let verified):
            Accepted(
                kind: .notification, jws: verified.jws, environment: verified.environment,
                effectiveDate: verified.effectiveDate, context: verified.context, transaction: nil,
                notification: verified.payload, renewalInfo: nil, appTransaction: nil,
                nested: [
                    verified.transaction.map { accepted(.transaction($0)) },
                    verified.renewalInfo.map { accepted(.renewalInfo($0)) },
                    verified.appTransaction.map { accepted(.appTransaction($0)) },
                ].compactMap { $0 })
        }
    }

    /// Whether the line was accepted.
    public var isAccepted: Bool {
        if case .accepted = outcome { return true }
        return false
    }

    public var description: String {
        switch outcome {
        case .accepted(let accepted): "accepted \(accepted.kind.rawValue) (\(accepted.environment.rawValue))"
        case .rejected(let code, let message): "\(code.rawValue): \(message)"
        }
    }
}

extension Verdict.Accepted {
    fileprivate init<Payload>(
        _ verified: Verified<Payload>, kind: PayloadKind, transaction: JWSTransactionDecodedPayload? = nil,
        renewalInfo: JWSRenewalInfoDecodedPayload? = nil, appTransaction: AppTransaction? = nil
    ) {
        self.init(
            kind: kind, jws: verified.jws, environment: verified.environment, effectiveDate: verified.effectiveDate,
            context: verified.context, transaction: transaction, notification: nil, renewalInfo: renewalInfo,
            appTransaction: appTransaction, nested: [])
    }
}
