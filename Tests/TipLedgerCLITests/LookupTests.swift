// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// `tipledger lookup`: a transaction, or an order id's transactions, asked of the fake,
/// verified, shown and recorded.
@Suite struct LookupTests {
    @Test func aTransactionAppleReturnsIsShownAndRecordedPending() async throws {
        try await APIScenario.with { scenario in
            scenario.store.setTransaction("6000000000000001", try scenario.tip("6000000000000001", hoursAgo: 5))
            let first = try await scenario.run(["lookup", "6000000000000001"])
            #expect(first.exited(0), "\(first.summary)")
            #expect(first.outLines.count == 2, "a header and one row: \(first.out)")
            #expect(first.outLines.last?.contains("6000000000000001  com.example.tip") == true, "\(first.out)")
            #expect(first.outLines.last?.hasSuffix("0.99 USD  recorded (pending)") == true, "\(first.out)")

            let again = try await scenario.run(["lookup", "6000000000000001", "--format", "json"])
            #expect(again.exited(0), "\(again.summary)")
            let shown = try #require(try again.jsonLines().first)
            #expect(shown["outcome"] as? String == "duplicate")
            #expect(shown["state"] as? String == "pending")
            #expect(JSONValue.int64(shown["price"]) == 990)
            #expect(
                scenario.requests(.getTransactionInfo).map(\.parameter) == ["6000000000000001", "6000000000000001"])
        }
    }

    @Test func anOrderIdsTransactionsAreRecorded() async throws {
        try await APIScenario.with { scenario in
            let tips = try ["6000000000000011", "6000000000000012"].map { try scenario.tip($0, hoursAgo: 30) }
            scenario.store.setOrder("MQ5YZ4A2BC", tips)
            let result = try await scenario.run(["lookup", "--order-id", "MQ5YZ4A2BC"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.outLines.dropFirst().allSatisfy { $0.hasSuffix("recorded (pending)") }, "\(result.out)")
            let recorded = try await SQLiteShell.rows(
                "ledger.sqlite", "SELECT transaction_id FROM transactions ORDER BY 1", in: scenario.directory.path)
            #expect(recorded == ["6000000000000011", "6000000000000012"])
        }
    }

    @Test func whatAppleDoesNotKnowIsRejectedWithApplesErrorByName() async throws {
        try await APIScenario.with { scenario in
            let unknown = try await scenario.run(["lookup", "6000000000000099"])
            #expect(unknown.exited(1), "\(unknown.summary)")
            #expect(
                unknown.errLines.contains(
                    "error: Apple knows no transaction 6000000000000099 in Production "
                        + "(TransactionIdNotFoundError (4040010): Transaction id not found.)"), "\(unknown.err)")
            let order = try await scenario.run(["lookup", "--order-id", "NOSUCHORDER"])
            #expect(order.exited(1), "\(order.summary)")
            #expect(
                order.errLines.contains {
                    $0.hasPrefix("error: Apple says the order id NOSUCHORDER is not valid (status 1)")
                },
                "\(order.err)")
            #expect(!scenario.directory.exists("ledger.sqlite"), "nothing to record makes no ledger")
        }
    }

    /// An error Apple says to retry is no answer that the transaction is unknown: still
    /// answered after every attempt, it is Apple failing to answer (69, run it again).
    @Test func aRetryableNotFoundAfterEveryAttemptIsAppleUnavailableNotAnUnknownTransaction() async throws {
        try await APIScenario.with { scenario in
            for _ in 1...5 {
                scenario.fake.reply(
                    .appleError(status: 404, code: 4_040_006, message: "Original transaction id not found."))
            }
            let result = try await scenario.run(["lookup", "6000000000000031"])
            #expect(result.exited(69), "\(result.summary)")
            #expect(!result.err.contains("Apple knows no transaction"), "\(result.err)")
            #expect(result.err.contains("OriginalTransactionIdNotFoundRetryableError (4040006)"), "\(result.err)")
            #expect(result.err.contains("hint: nothing was lost"), "\(result.err)")
            #expect(scenario.requests(.getTransactionInfo).count == 5)
        }
    }

    @Test func aForgedTransactionFromTheServerIsRejectedAndNotRecorded() async throws {
        try await APIScenario.with { scenario in
            let genuine = try scenario.tip("6000000000000021", hoursAgo: 3)
            scenario.store.setTransaction(
                "6000000000000021", TestJWS.replacingSignature(of: genuine, with: [UInt8](repeating: 1, count: 64)))
            let result = try await scenario.run(["lookup", "6000000000000021"])
            #expect(result.exited(1), "\(result.summary)")
            #expect(
                result.errLines.contains { $0.hasPrefix("rejected: bad_signature (VERIFICATION_FAILURE)") },
                "\(result.err)")
            let count = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT count(*) FROM transactions", in: scenario.directory.path)
            #expect(count == "0")
        }
    }

    @Test func aDryRunRecordsNothing() async throws {
        try await APIScenario.with { scenario in
            scenario.store.setTransaction("6000000000000031", try scenario.tip("6000000000000031", hoursAgo: 1))
            let result = try await scenario.run(["lookup", "6000000000000031", "--dry-run"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.outLines.dropFirst().first?.hasSuffix("verified") == true, "\(result.out)")
            #expect(result.outLines.last == "dry run: nothing recorded")
            #expect(!scenario.directory.exists("ledger.sqlite"))
        }
    }
}
