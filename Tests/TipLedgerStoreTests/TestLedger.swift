// SPDX-License-Identifier: GPL-3.0-or-later
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// A ledger on a real file in its own temporary directory, with a fixed clock, and ways to look
/// at its tables directly.
final class TestLedger: Sendable {
    let directory: TemporaryDirectory
    let ledger: Ledger
    let path: String

    /// One millisecond-exact hour, for dates relative to the reference time.
    static let hour: Int64 = 3_600_000
    static let reference = TestChains.referenceMilliseconds

    /// Opens a fresh ledger whose clock always says `now` (the reference time by default);
    /// `inMemory` uses `:memory:` instead: for the many cases of a parameterised rule, where a file
    /// adds only time (WAL, fsync and locking are tested on files elsewhere).
    init(now: Int64 = TestChains.referenceMilliseconds, inMemory: Bool = false) throws {
        directory = try TemporaryDirectory()
        path = inMemory ? ":memory:" : directory.file("ledger.sqlite")
        ledger = try Ledger.open(path: path, clock: .fixed(AppleDate(wholeMilliseconds: now)))
    }

    /// A notification of `type` about `purchase` (a transaction's token), with UUID 1, signed
    /// an hour after the reference time: what most tests send once the purchase is recorded.
    static func notification(_ type: String, about purchase: String, revocationReason: Int32 = 0) throws -> String {
        try TestChains.notification(
            type: type, uuid: TestChains.uuid(1), signedDate: reference + hour, around: purchase,
            revocationReason: revocationReason)
    }

    /// Verifies `token` with the standard verifier and records it.
    @discardableResult
    func record(_ token: String, finish: Bool = true) throws -> RecordResult {
        try ledger.record(try TestChains.verified(token), finish: finish)
    }

    /// Verifies every token and records them as one batch; throws the first item's failure.
    @discardableResult
    func record(batch tokens: [String], finish: Bool = true) throws -> [RecordResult] {
        try results(ofBatch: tokens, finish: finish).map { try $0.get() }
    }

    /// Verifies every token and records them as one batch: one result per item.
    func results(ofBatch tokens: [String], finish: Bool = true) throws -> [Result<RecordResult, VerificationError>] {
        try ledger.record(try tokens.map { try TestChains.verified($0) }, finish: finish)
    }

    func count(_ table: String) throws -> Int64 {
        try ledger.integer("SELECT count(*) FROM \(table)")
    }

    /// The stored row of a transaction, or nil.
    func transaction(_ id: String, environment: String = "Sandbox") throws -> StoredTransaction? {
        try ledger.withDatabase { database in
            try database.queryOne(
                """
                SELECT state, finished_ms, gross_milli, refunded_milli, revoked_milli, signed_date_ms, evidence_id,
                    revocation_date_ms, revocation_reason, revocation_type, revocation_percentage, quantity, account
                FROM transactions WHERE environment = ? AND transaction_id = ?
                """, environment, id
            ) { row in
                StoredTransaction(
                    state: row.text(0) ?? "", finishedMilliseconds: row.optionalInt64(1), gross: row.int64(2),
                    refunded: row.int64(3), revoked: row.int64(4), signedDate: row.int64(5), evidenceId: row.int64(6),
                    revocationDate: row.optionalInt64(7), revocationReason: row.optionalInt64(8),
                    revocationType: row.text(9), revocationPercentage: row.optionalInt64(10), quantity: row.int64(11),
                    account: row.text(12))
            }
        }
    }

    /// The events of one transaction, oldest first.
    func events(of transactionId: String, environment: String = "Sandbox") throws -> [StoredEvent] {
        try ledger.withDatabase { database in
            try database.query(
                """
                SELECT kind, source, gross_delta_milli, refunded_delta_milli, revoked_delta_milli FROM events
                WHERE environment = ? AND transaction_id = ? ORDER BY id
                """, [environment, transactionId]
            ) { row in
                StoredEvent(
                    kind: row.text(0) ?? "", source: row.text(1) ?? "", gross: row.int64(2), refunded: row.int64(3),
                    revoked: row.int64(4))
            }
        }
    }

    /// The event kinds of one transaction, oldest first.
    func eventKinds(of transactionId: String, environment: String = "Sandbox") throws -> [String] {
        try events(of: transactionId, environment: environment).map(\.kind)
    }
}

/// A `transactions` row as stored, amounts in milliunits.
struct StoredTransaction: Equatable {
    var state: String
    var finishedMilliseconds: Int64?
    var gross: Int64
    var refunded: Int64
    var revoked: Int64
    var signedDate: Int64
    var evidenceId: Int64
    var revocationDate: Int64?
    var revocationReason: Int64?
    var revocationType: String?
    var revocationPercentage: Int64?
    var quantity: Int64
    var account: String?

    var net: Int64 { gross - refunded - revoked }
}

/// An `events` row: its kind, source and the amounts it changed.
struct StoredEvent: Equatable {
    var kind: String
    var source: String
    var gross: Int64
    var refunded: Int64
    var revoked: Int64
}

extension Ledger {
    /// The first column of the first row of `sql`, an integer (0 when there is no row).
    func integer(_ sql: String, _ values: [any SQLBindable] = []) throws -> Int64 {
        try withDatabase { database in try database.query(sql, values) { $0.int64(0) }.first ?? 0 }
    }

    /// The first column of every row of `sql`, as text.
    func texts(_ sql: String, _ values: [any SQLBindable] = []) throws -> [String?] {
        try withDatabase { database in try database.query(sql, values) { $0.text(0) } }
    }

    /// Runs `sql` on the ledger's connection.
    func execute(_ sql: String) throws {
        try withDatabase { database in try database.execute(sql) }
    }
}
