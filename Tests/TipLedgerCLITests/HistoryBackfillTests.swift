// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// `tipledger sync --history` and `--refunds`: a customer's transactions and refunds fetched
/// page by page from the fake, recorded as `verify` records them, with the right totals when
/// Apple sends a transaction again with its refund.
@Suite struct HistoryBackfillTests {
    /// The customer's first tip, whose id the history is asked with.
    static let customer = "5000000000000001"

    /// 45 tips in three pages of Get Transaction History; the third page brings the seventh tip
    /// again, refunded a day after its purchase (Apple re-sends a transaction that changed while
    /// the pages are read). Returns every tip, by number.
    @discardableResult
    static func fillHistory(_ scenario: APIScenario) throws -> [String] {
        let tips = try (1...45).map { number in
            try scenario.tip(String(5_000_000_000_000_000 + number), hoursAgo: Int64(200 - number))
        }
        let refunded = try scenario.tip("5000000000000007", hoursAgo: 193) { transaction in
            transaction.adjust(for: "REFUND", signedDate: scenario.time(hoursAgo: 169))
        }
        scenario.store.setTransactionHistory(
            customer, pages: [Array(tips[0..<20]), Array(tips[20..<40]), Array(tips[40...]) + [refunded]])
        return tips
    }

    /// Count, gross, refunded and net of the ledger's transactions, and how many are pending.
    static func totals(_ scenario: APIScenario, database: String = "ledger.sqlite") async throws -> String {
        try await SQLiteShell.value(
            database,
            """
            SELECT count(*), sum(gross_milli), sum(refunded_milli), sum(gross_milli - refunded_milli - revoked_milli),
                sum(state = 'pending'), sum(state = 'finished'), sum(state = 'refunded')
            FROM transactions
            """, in: scenario.directory.path)
    }

    @Test func backfillOverSeveralPagesWithARefundSentAgainGivesTheRightTotals() async throws {
        try await APIScenario.with { scenario in
            let tips = try Self.fillHistory(scenario)
            // The app posted its first tip itself, and delivered it.
            let posted = try await scenario.run(["verify"], api: false, input: .text(tips[0] + "\n"))
            #expect(posted.exited(0), "\(posted.summary)")

            let result = try await scenario.run(["sync", "--history", Self.customer])
            #expect(result.exited(0), "\(result.summary)")
            #expect(
                result.outLines.last == "Production: 46 transactions in 3 pages: 44 recorded, 1 updated, 1 duplicate",
                "\(result.out)")
            #expect(scenario.requests(.getTransactionHistory).map { $0.query["revision"] } == [nil, "rev-1", "rev-2"])
            #expect(scenario.requests(.getTransactionHistory).allSatisfy { $0.query["sort"] == "ASCENDING" })
            // 45 tips of 0.99, one refunded; the first finished, the others pending.
            #expect(try await Self.totals(scenario) == "45|44550|990|43560|43|1|1")
            let refunds = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT count(*) FROM events WHERE kind = 'refunded'", in: scenario.directory.path)
            #expect(refunds == "1")
        }
    }

    @Test func aLaterBackfillAsksOnlyForWhatChangedUnlessFromStart() async throws {
        try await APIScenario.with { scenario in
            try Self.fillHistory(scenario)
            let first = try await scenario.run(["sync", "--history", Self.customer, "--finished"])
            #expect(first.exited(0), "\(first.summary)")
            #expect(try await Self.totals(scenario) == "45|44550|990|43560|0|44|1")

            let later = try await scenario.run(["sync", "--history", Self.customer])
            #expect(later.exited(0), "\(later.summary)")
            #expect(later.err.contains("asking only for what changed since the last walk"), "\(later.err)")
            #expect(scenario.requests(.getTransactionHistory).dropFirst(3).map { $0.query["revision"] } == ["rev-3"])

            let everything = try await scenario.run(["sync", "--history", Self.customer, "--from-start"])
            #expect(everything.exited(0), "\(everything.summary)")
            #expect(everything.outLines.last == "Production: 46 transactions in 3 pages: 46 duplicate")
            #expect(try await Self.totals(scenario) == "45|44550|990|43560|0|44|1")
        }
    }

    @Test func aRefundSweepRecordsTheCustomersRefunds() async throws {
        try await APIScenario.with { scenario in
            let tip = try scenario.tip("5000000000000101", hoursAgo: 100)
            let refunded = try scenario.tip("5000000000000101", hoursAgo: 100) { transaction in
                transaction.adjust(for: "REFUND", signedDate: scenario.time(hoursAgo: 50))
            }
            scenario.store.setRefundHistory("5000000000000101", pages: [[refunded]])
            _ = try await scenario.run(["verify"], api: false, input: .text(tip + "\n"))

            let result = try await scenario.run(["sync", "--refunds", "5000000000000101"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.outLines.last == "Production: 1 transactions in 1 page: 1 updated", "\(result.out)")
            #expect(try await Self.totals(scenario) == "1|990|990|0|0|0|1")
            #expect(scenario.requests(.getRefundHistory).map(\.parameter) == ["5000000000000101"])
        }
    }

    @Test func aDryRunShowsTheHistoryAndRecordsNothing() async throws {
        try await APIScenario.with { scenario in
            try Self.fillHistory(scenario)
            let result = try await scenario.run(["sync", "--history", Self.customer, "--dry-run"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.outLines.last?.hasSuffix("46 verified (dry run: nothing recorded)") == true, "\(result.out)")
            #expect(!scenario.directory.exists("ledger.sqlite"))
        }
    }

    @Test func aCustomerAppleDoesNotKnowIsRejected() async throws {
        try await APIScenario.with { scenario in
            let result = try await scenario.run(["sync", "--history", "5999999999999999"])
            #expect(result.exited(1), "\(result.summary)")
            #expect(
                result.errLines.contains {
                    $0.hasPrefix("error: Apple knows no transaction 5999999999999999 in Production")
                },
                "\(result.err)")
            #expect(result.err.contains("hint: "))
        }
    }
}
