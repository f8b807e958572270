// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

@testable import TipLedgerStore

/// The writer knows a row's state without reading it back, by `TransactionState`'s copy of the
/// schema's rule: the copy must give what the generated column gives, for every row.
@Suite struct TransactionStateTests {
    /// The columns the generated `state` column reads.
    struct Columns: Sendable, CustomTestStringConvertible {
        let revoked: Bool
        let refunded: Bool
        let finished: Bool

        var testDescription: String { "revoked \(revoked), refunded \(refunded), finished \(finished)" }

        static let all = [false, true].flatMap { revoked in
            [false, true].flatMap { refunded in
                [false, true].map { Columns(revoked: revoked, refunded: refunded, finished: $0) }
            }
        }
    }

    @Test(arguments: Columns.all)
    func theSwiftRuleGivesTheStateTheSchemaGives(_ columns: Columns) throws {
        let store = try TestLedger(inMemory: true)
        try store.record(try TestChains.transaction(id: "2000000000000001"), finish: false)

        try store.ledger.execute(
            """
            UPDATE transactions SET revoked = \(columns.revoked ? 1 : 0),
                revocation_date_ms = \(columns.refunded ? "\(TestLedger.reference)" : "NULL"),
                finished_ms = \(columns.finished ? "\(TestLedger.reference)" : "NULL")
            """)

        let rule = TransactionState(revoked: columns.revoked, refunded: columns.refunded, finished: columns.finished)
        #expect(try store.ledger.texts("SELECT state FROM transactions") == [rule.rawValue])
    }

    /// Finishing a row in memory gives the state the schema gives it once finished.
    @Test(arguments: Columns.all.filter { !$0.finished })
    func aRowFinishedInMemoryHasTheStateTheSchemaGivesIt(_ columns: Columns) {
        var amounts = TransactionAmounts(
            gross: 990, refunded: 0, revoked: 0,
            state: TransactionState(revoked: columns.revoked, refunded: columns.refunded, finished: false))

        amounts.markFinished()

        #expect(amounts.finished)
        #expect(amounts.state == TransactionState(revoked: columns.revoked, refunded: columns.refunded, finished: true))
    }
}
