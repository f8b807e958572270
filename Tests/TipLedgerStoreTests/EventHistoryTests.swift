// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Events (docs/ledger.md): an append-only history from which every total can be recomputed.
@Suite struct EventHistoryTests {
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    @Test(arguments: ["UPDATE events SET kind = 'rewritten'", "DELETE FROM events", "UPDATE events SET detail = NULL"])
    func eventsCannotBeChangedOrDeleted(sql: String) throws {
        let store = try TestLedger(inMemory: true)
        try store.record(try TestChains.transaction())
        let before = try store.events(of: "2000000000000001")

        let error = try #require(throws: StoreError.self) { try store.ledger.execute(sql) }

        #expect(error.message.contains("events are append-only"))
        #expect(try store.events(of: "2000000000000001") == before)
    }

    /// What the App Store's copy of a transaction says in one notification of a random history.
    enum Change: CaseIterable {
        case refund, proratedRefund, reversal, revoke
    }

    /// A random mix of purchases, refunds (full and prorated), reversals and revocations, in
    /// two environments and two currencies, delivered out of order and some twice: the events'
    /// deltas add up to the report's totals per (environment, currency), and each transaction
    /// ends as its newest signed information says.
    @Test(arguments: [UInt64(1), 2, 42])
    func eventDeltasAddUpToTheReportTotals(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let store = try TestLedger()
        var tokens: [String] = []
        // Per "environment/transactionId": the newest signed payload's date and amounts.
        var newest: [String: (signedDate: Int64, refunded: Int64, revoked: Int64)] = [:]
        var notificationNumber = 0
        // Distinct signed dates after the purchases, drawn in random order.
        var signedDates = (1...100).map { reference + Int64($0) * 60_000 }.shuffled(using: &random)

        for number in 0..<16 {
            let id = String(2_000_000_000_000_100 + number)
            let environment = number % 2 == 0 ? "Sandbox" : "Production"
            let price = Int64.random(in: 1...20, using: &random) * 500 - 10
            let purchase = try TestChains.transaction(
                id: id, price: price, currency: number % 4 < 2 ? "USD" : "EUR", environment: environment,
                purchaseDate: reference)
            let key = "\(environment)/\(id)"
            let changes = Int.random(in: 0...4, using: &random)
            if changes == 0 || Bool.random(using: &random) {
                tokens.append(purchase)
                newest[key] = (reference, 0, 0)
            }
            for _ in 0..<changes {
                notificationNumber += 1
                let uuid = TestChains.uuid(notificationNumber)
                let signedDate = signedDates.removeLast()
                var expected = (signedDate: signedDate, refunded: Int64(0), revoked: Int64(0))
                let token: String
                switch Change.allCases.randomElement(using: &random)! {
                case .refund:
                    token = try TestChains.notification(
                        type: "REFUND", uuid: uuid, signedDate: signedDate, around: purchase)
                    expected.refunded = price
                case .proratedRefund:
                    let percentage = Int32.random(in: 1...100_000, using: &random)
                    token = try TestChains.notification(
                        type: "REFUND", uuid: uuid, signedDate: signedDate, around: purchase,
                        revocationPercentage: percentage)
                    expected.refunded = (price * Int64(percentage) + 50_000) / 100_000
                case .reversal:
                    token = try TestChains.notification(
                        type: "REFUND_REVERSED", uuid: uuid, signedDate: signedDate, around: purchase)
                case .revoke:
                    token = try TestChains.notification(
                        type: "REVOKE", uuid: uuid, signedDate: signedDate, around: purchase)
                    expected.revoked = price
                }
                tokens.append(token)
                if Int.random(in: 0..<4, using: &random) == 0 { tokens.append(token) }  // delivered twice
                if signedDate > newest[key]?.signedDate ?? 0 { newest[key] = expected }
            }
        }
        tokens.shuffle(using: &random)

        try store.record(batch: tokens)

        let eventSums = try store.ledger.withDatabase { database in
            try database.query(
                """
                SELECT environment, currency, sum(gross_delta_milli), sum(refunded_delta_milli), sum(revoked_delta_milli)
                FROM events WHERE currency IS NOT NULL GROUP BY environment, currency ORDER BY environment, currency
                """, []
            ) { row in "\(row.text(0)!) \(row.text(1)!) \(row.int64(2)) \(row.int64(3)) \(row.int64(4))" }
        }
        let reportTotals = try store.ledger.report(ReportQuery(grouping: .currency), now: reference).rows.map {
            "\($0.environment.rawValue) \($0.currency!) \($0.grossMilli) \($0.refundedMilli) \($0.revokedMilli)"
        }
        #expect(eventSums == reportTotals, "seed \(seed)")
        // The audit's rules hold for every history the ledger records.
        #expect(try store.ledger.brokenInvariants().breaches == [], "seed \(seed)")
        #expect(
            try store.ledger.integer(
                "SELECT count(*) FROM events WHERE currency IS NULL AND "
                    + "(gross_delta_milli != 0 OR refunded_delta_milli != 0 OR revoked_delta_milli != 0)") == 0)
        for (key, expected) in newest {
            let parts = key.split(separator: "/").map(String.init)
            let row = try #require(try store.transaction(parts[1], environment: parts[0]), "seed \(seed) \(key)")
            #expect(row.signedDate == expected.signedDate, "seed \(seed) \(key)")
            #expect(row.refunded == expected.refunded, "seed \(seed) \(key)")
            #expect(row.revoked == expected.revoked, "seed \(seed) \(key)")
            let events = try store.events(of: parts[1], environment: parts[0])
            #expect(events.map(\.gross).reduce(0, +) == row.gross, "seed \(seed) \(key)")
            #expect(events.map(\.refunded).reduce(0, +) == row.refunded, "seed \(seed) \(key)")
            #expect(events.map(\.revoked).reduce(0, +) == row.revoked, "seed \(seed) \(key)")
        }
    }

    /// Apple's UUIDs may come in either letter case: the notification is keyed by the lowercased
    /// UUID, its evidence keeps the token's own, and the audit takes them for the same.
    @Test func aNotificationWhoseUUIDIsUpperCasePassesTheAudit() throws {
        let store = try TestLedger(inMemory: true)
        let purchase = try TestChains.transaction()
        try store.record(purchase)
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(0xabc).uppercased(), signedDate: reference + hour,
                around: purchase))

        #expect(try store.ledger.brokenInvariants().breaches == [])
    }

    @Test func eventsNameTheirSourceAndTime() throws {
        let store = try TestLedger(now: reference + 5 * hour)
        let purchase = try TestChains.transaction()
        try store.record(purchase, finish: false)
        _ = try store.ledger.finish(["2000000000000001"])
        try store.record(
            try TestLedger.notification("REFUND", about: purchase))

        let events = try store.events(of: "2000000000000001").map { "\($0.kind) \($0.source)" }

        #expect(events == ["recorded client", "finished finish", "refunded \(TestChains.uuid(1))"])
        #expect(try store.ledger.integer("SELECT count(*) FROM events WHERE at_ms != ?", [reference + 5 * hour]) == 0)
    }
}
