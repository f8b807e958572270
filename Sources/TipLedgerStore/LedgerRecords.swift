// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// Where a transaction stands. Refunded and revoked win over finished.
public enum TransactionState: String, Sendable, CaseIterable {
    /// Verified, not yet finished (delivered) by the app.
    case pending
    case finished
    case refunded
    /// Family Sharing access revoked.
    case revoked
}

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

    public init(outcome: Outcome, transactionId: String?, state: TransactionState?, finished: Bool?) {
        self.outcome = outcome
        self.transactionId = transactionId
        self.state = state
        self.finished = finished
    }
}

/// A transaction as the ledger holds it.
public struct TransactionRecord: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    public let transactionId: String
    public let originalTransactionId: String?
    public let appTransactionId: String?
    public let account: String?
    public let productId: String
    public let purchaseDateMilliseconds: Int64?
    public let quantity: Int64
    /// Whole purchase, milliunits.
    public let priceMilli: Int64?
    public let currency: String?
    public let storefront: String?
    public let state: TransactionState
    public let finishedMilliseconds: Int64?
    public let revocationDateMilliseconds: Int64?
    public let revocationReason: Int64?
    /// What the transaction adds to net: price less refunds and revocations, milliunits.
    public let netMilli: Int64

    public var finished: Bool { finishedMilliseconds != nil }
}

/// Net of a set of transactions in one environment and currency.
public struct NetTotal: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    public let currency: String?
    public let netMilli: Int64
}

/// An account's tips for `restore`.
public struct Restore: Sendable {
    public let transactions: [TransactionRecord]
    /// Per environment and currency, over all the account's transactions (refunds subtracted).
    public let totals: [NetTotal]
    /// The account's transactions not listed (refunded or revoked, unless all were asked for).
    public let unlisted: Int
}

/// How `report` groups its rows.
public enum ReportGrouping: String, Sendable, CaseIterable {
    case product, currency, storefront, account, day, month
}

/// Which transactions a report covers.
public struct ReportQuery: Sendable {
    public var grouping: ReportGrouping = .product
    /// Purchase date from (inclusive), milliseconds since 1970.
    public var since: Int64?
    /// Purchase date until (exclusive), milliseconds since 1970.
    public var until: Int64?
    /// Only these environments; all when nil.
    public var environments: [AppStoreEnvironment]?

    public init(
        grouping: ReportGrouping = .product, since: Int64? = nil, until: Int64? = nil,
        environments: [AppStoreEnvironment]? = nil
    ) {
        self.grouping = grouping
        self.since = since
        self.until = until
        self.environments = environments
    }
}

/// One row of a report: one environment, group and currency. Amounts in milliunits.
public struct ReportRow: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    /// The group's value (product id, storefront, account, day, month); nil for `currency`
    /// grouping, or when the transactions lack the field.
    public let group: String?
    public let currency: String?
    public let transactions: Int64
    public let units: Int64
    public let grossMilli: Int64
    public let refundedMilli: Int64
    public let revokedMilli: Int64

    public var netMilli: Int64 { grossMilli - refundedMilli - revokedMilli }
}

/// A consumption request Apple is waiting on.
public struct ConsumptionRequest: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    public let transactionId: String
    public let reason: String?
    /// Milliseconds since 1970.
    public let deadlineMilliseconds: Int64
}

/// The result of `report`.
public struct Report: Sendable {
    public let rows: [ReportRow]
    public let openConsumptionRequests: [ConsumptionRequest]
}

/// A stored token that no longer verifies.
public struct ReverifyFailure: Sendable {
    public let evidenceId: Int64
    public let kind: String
    public let environment: String
    public let transactionId: String?
    public let notificationUUID: String?
    public let error: VerificationError
}

/// A problem SQLite's integrity check found in the file.
public struct IntegrityProblem: Sendable, Equatable {
    /// The ledger table it is in (with its indexes), or nil for the file as a whole (free pages,
    /// pages that belong to no table).
    public let table: String?
    /// SQLite's words, e.g. "On tree page 36 cell 217: Rowid 80 out of order".
    public let message: String
}

/// A row that breaks one of the ledger's own rules: the file is sound, but what it holds does
/// not add up (it was changed by other means than tipledger, or by a fault SQLite did not see).
public struct InvariantBreach: Sendable, Equatable {
    /// "transaction" or "notification": the kind of row.
    public let kind: String
    public let environment: String
    public let transactionId: String?
    public let notificationUUID: String?
    /// What is wrong, in words.
    public let problem: String
}

/// What `Ledger.brokenInvariants` checked, and what it found.
public struct InvariantCheck: Sendable {
    public let transactions: Int
    public let notifications: Int
    public let breaches: [InvariantBreach]
}

/// What finishing one transaction id did.
public enum FinishOutcome: String, Sendable {
    case finished
    case alreadyFinished = "already_finished"
    case notFound = "not_found"
}

/// What finishing a transaction id did in one environment: an id found in several environments
/// (Xcode numbers its transactions from 1 in every test session) has one result for each, an id
/// found in none has one `notFound` result without an environment.
public struct FinishResult: Sendable, Equatable {
    public let transactionId: String
    public let environment: AppStoreEnvironment?
    public let outcome: FinishOutcome

    public init(transactionId: String, environment: AppStoreEnvironment?, outcome: FinishOutcome) {
        self.transactionId = transactionId
        self.environment = environment
        self.outcome = outcome
    }
}
