// SPDX-License-Identifier: GPL-3.0-or-later

/// What recording one verified payload did.
public struct RecordResult: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// A new transaction was recorded; or a notification was, without changing any
        /// transaction (TEST, REFUND_DECLINED, unknown types, ...).
        case recorded
        /// A known transaction took newer signed information (a later signedDate).
        case updated
        /// Nothing new: the same token, an older one, or the same notification UUID again.
        case duplicate
        /// A notification changed the ledger.
        case applied
        /// A verified payload of a kind the ledger does not keep (renewal info, app transaction).
        case notRecorded = "not_recorded"
    }

    public let outcome: Outcome
    /// The transaction recorded or changed, if any.
    public let transactionId: String?
    public let state: TransactionState?
    public let finished: Bool?

    init(outcome: Outcome, transactionId: String?, state: TransactionState?, finished: Bool?) {
        self.outcome = outcome
        self.transactionId = transactionId
        self.state = state
        self.finished = finished
    }
}
