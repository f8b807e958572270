// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Consumption requests, and the types that are only recorded and acknowledged (docs/ledger.md).
@Suite struct NotificationTypeTests {
    let id = "2000000000000001"
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    @Test func consumptionRequestIsOpenWithItsReasonAndATwelveHourDeadline() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)
        let totalsBefore = try store.ledger.report(ReportQuery(grouping: .currency), now: reference).rows

        let result = try store.record(
            try TestChains.notification(
                type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(1), signedDate: reference + hour, around: purchase,
                consumptionReason: "UNINTENDED_PURCHASE"))

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: .finished, finished: true))
        let report = try store.ledger.report(ReportQuery(grouping: .currency), now: reference + hour)
        #expect(
            report.openConsumptionRequests == [
                ConsumptionRequest(
                    environment: .sandbox, transactionId: id, reason: "UNINTENDED_PURCHASE",
                    deadlineMilliseconds: reference + 13 * hour)
            ])
        #expect(report.rows == totalsBefore)
        #expect(try store.transaction(id)?.net == 990)
        #expect(
            try store.events(of: id).last
                == StoredEvent(
                    kind: "consumption_requested", source: TestChains.uuid(1), gross: 0, refunded: 0, revoked: 0))
    }

    /// Open a millisecond before the deadline; gone at the deadline itself, a millisecond after
    /// it and 12 hours later.
    @Test(arguments: [-1, 0, 1, 12 * 3_600_000] as [Int64])
    func consumptionRequestIsOpenOnlyUntilItsDeadline(offset: Int64) throws {
        let store = try TestLedger(inMemory: true)
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)
        try store.record(
            try TestChains.notification(
                type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(1), signedDate: reference, around: purchase))
        let deadline = reference + 12 * hour

        let requests = try store.ledger.report(ReportQuery(), now: deadline + offset).openConsumptionRequests

        #expect(requests.map(\.transactionId) == (offset < 0 ? [id] : []))
    }

    /// A refund, or its refusal, decides what the request was about: it is no longer open.
    /// Another transaction's request stays open.
    @Test(arguments: ["REFUND", "REFUND_DECLINED"])
    func theRefundDecisionClosesTheConsumptionRequest(type: String) throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        let other = try TestChains.transaction(id: "2000000000000002")
        for (number, tip) in [purchase, other].enumerated() {
            try store.record(tip)
            try store.record(
                try TestChains.notification(
                    type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(number + 1), signedDate: reference,
                    around: tip))
        }
        #expect(try openRequests(in: store).count == 2)

        try store.record(
            try TestChains.notification(
                type: type, uuid: TestChains.uuid(3), signedDate: reference + hour, around: purchase))

        #expect(try openRequests(in: store) == ["2000000000000002"])
    }

    /// A decision signed before the request was about an earlier one: the request stays open.
    @Test func aDecisionSignedBeforeTheRequestLeavesItOpen() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)
        try store.record(
            try TestChains.notification(
                type: "REFUND_DECLINED", uuid: TestChains.uuid(1), signedDate: reference, around: purchase))
        try store.record(
            try TestChains.notification(
                type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(2), signedDate: reference + 1, around: purchase))

        #expect(try openRequests(in: store) == [id])
    }

    /// The requests' decisions are looked up by transaction, not by scanning the notifications.
    @Test func decisionsAreFoundThroughTheirIndex() throws {
        let store = try TestLedger()
        let plan = try store.ledger.withReader { database in
            try database.query(
                "EXPLAIN QUERY PLAN SELECT 1 FROM consumption_requests AS request WHERE NOT \(ConsumptionRequestTracker.decided)",
                []
            ) { $0.text(3) ?? "" }
        }
        #expect(
            plan.contains(
                "SEARCH decision USING INDEX notifications_by_transaction (environment=? AND transaction_id=?)"),
            "\(plan)")
    }

    private func openRequests(in store: TestLedger) throws -> [String] {
        try store.ledger.report(ReportQuery(), now: reference + 2 * hour).openConsumptionRequests.map(\.transactionId)
    }

    @Test func consumptionRequestForAnUnknownTransactionIsOpenAndRecordsNoTransaction() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)

        let result = try store.record(
            try TestChains.notification(
                type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(1), signedDate: reference, around: purchase,
                consumptionReason: "OTHER"))

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: nil, finished: nil))
        #expect(try store.count("transactions") == 0)
        let requests = try store.ledger.report(ReportQuery(), now: reference).openConsumptionRequests
        #expect(requests.map(\.reason) == ["OTHER"])
    }

    @Test func consumptionRequestsFollowTheReportsEnvironmentFilter() throws {
        let store = try TestLedger()
        for (number, environment) in ["Sandbox", "Production"].enumerated() {
            let purchase = try TestChains.transaction(id: id, environment: environment)
            try store.record(
                try TestChains.notification(
                    type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(number), around: purchase))
        }

        let all = try store.ledger.report(ReportQuery(), now: reference).openConsumptionRequests
        let production = try store.ledger.report(ReportQuery(environments: [.production]), now: reference)

        #expect(Set(all.map(\.environment)) == [.sandbox, .production])
        #expect(production.openConsumptionRequests.map(\.environment) == [.production])
    }

    /// Types that change nothing: recorded with their event and acknowledged, never an error.
    @Test(arguments: [
        (type: "REFUND_DECLINED", subtype: String?.none, event: "refund_declined"),
        ("DID_RENEW", "BILLING_RECOVERY", "notification"),
        ("SUBSCRIBED", "INITIAL_BUY", "notification"),
        ("EXPIRED", "VOLUNTARY", "notification"),
        ("PRICE_INCREASE", "PENDING", "notification"),
        ("SOMETHING_NEW", "WITH_A_NEW_SUBTYPE", "notification"),
    ])
    func typeIsRecordedAndAcknowledged(type: String, subtype: String?, event: String) throws {
        let store = try TestLedger(inMemory: true)
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)
        let uuid = TestChains.uuid(7)

        let result = try store.record(
            try TestChains.notification(
                type: type, subtype: subtype, uuid: uuid, signedDate: reference + hour, around: purchase))

        #expect(result == RecordResult(outcome: .recorded, transactionId: id, state: .finished, finished: true))
        #expect(
            try store.ledger.texts(
                "SELECT notification_type || '/' || coalesce(subtype, '') FROM notifications WHERE notification_uuid = ?",
                [uuid]) == ["\(type)/\(subtype ?? "")"])
        #expect(try store.events(of: id).last?.kind == event)
        #expect(try store.events(of: id).last?.source == uuid)
        #expect(try store.transaction(id)?.net == 990)
    }

    @Test func subscriptionNotificationForAnUnknownTransactionRecordsNoTransaction() throws {
        let store = try TestLedger()
        let renewal = try TestChains.transaction(id: id, productId: "com.example.tips.monthly") {
            $0.type = "Auto-Renewable Subscription"
        }

        let result = try store.record(
            try TestChains.notification(
                type: "DID_RENEW", uuid: TestChains.uuid(1), signedDate: reference + hour, around: renewal))

        #expect(result.outcome == .recorded)
        #expect(try store.count("transactions") == 0)
        #expect(try store.count("notifications") == 1)
    }

    @Test func testNotificationIsRecordedAndAcknowledged() throws {
        let store = try TestLedger()
        let uuid = TestChains.uuid(1)

        let result = try store.record(try TestChains.notification(type: "TEST", uuid: uuid))

        #expect(result == RecordResult(outcome: .recorded, transactionId: nil, state: nil, finished: nil))
        #expect(
            try store.ledger.texts(
                "SELECT notification_type || ' ' || effect FROM notifications WHERE notification_uuid = ?", [uuid])
                == ["TEST acknowledged"])
        #expect(try store.ledger.integer("SELECT count(*) FROM events WHERE source = ?", [uuid]) == 1)
        #expect(try store.record(try TestChains.notification(type: "TEST", uuid: uuid)).outcome == .duplicate)
    }

    /// Apple's always carry the transaction; one without opens no request (a request is about a
    /// transaction) but is recorded, and leaves its event in the history like any other.
    @Test func consumptionRequestWithoutATransactionIsRecordedWithAnEvent() throws {
        let store = try TestLedger()
        let uuid = TestChains.uuid(1)

        let result = try store.record(try TestChains.notification(type: "CONSUMPTION_REQUEST", uuid: uuid))

        #expect(result == RecordResult(outcome: .recorded, transactionId: nil, state: nil, finished: nil))
        #expect(try store.ledger.report(ReportQuery(), now: reference).openConsumptionRequests.isEmpty)
        #expect(
            try store.ledger.texts("SELECT kind || ' ' || detail FROM events WHERE source = ?", [uuid])
                == ["notification CONSUMPTION_REQUEST"])
    }

    @Test func oneTimeChargeRecordsItsTransactionWhenNewAndLeavesItPending() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, price: 1990)

        let result = try store.record(
            try TestChains.notification(
                type: "ONE_TIME_CHARGE", uuid: TestChains.uuid(1), signedDate: reference, around: purchase))

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: .pending, finished: false))
        #expect(try store.ledger.pending().map(\.transactionId) == [id])
        #expect(try store.transaction(id)?.net == 1990)
        #expect(try store.ledger.finish([id], environments: [.sandbox]).map(\.outcome) == [.finished])
        #expect(try store.transaction(id)?.state == "finished")
    }

    @Test func oneTimeChargeForAKnownTransactionChangesNothing() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)

        let result = try store.record(
            try TestLedger.notification("ONE_TIME_CHARGE", about: purchase))

        #expect(result == RecordResult(outcome: .recorded, transactionId: id, state: .finished, finished: true))
        #expect(try store.count("transactions") == 1)
        #expect(try store.transaction(id)?.net == 990)
    }
}
