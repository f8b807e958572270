// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Refunds, reversals and revocations, whatever order they arrive in (docs/ledger.md).
@Suite struct RefundTests {
    let id = "2000000000000001"
    let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    @Test func fullRefundRecordsTheRevocationAndRemovesTheWholePrice() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, price: 9990)
        try store.record(purchase)

        let result = try store.record(
            try TestLedger.notification("REFUND", about: purchase, revocationReason: 1))

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: .refunded, finished: true))
        let row = try #require(try store.transaction(id))
        #expect(row.revocationDate == reference + hour)
        #expect(row.revocationReason == 1)
        #expect(row.revocationType == "REFUND_FULL")
        #expect(row.refunded == 9990)
        #expect(row.net == 0)
        #expect(
            try store.events(of: id).last
                == StoredEvent(kind: "refunded", source: TestChains.uuid(1), gross: 0, refunded: 9990, revoked: 0))
    }

    @Test func refundThenReversalThenLateDuplicateOfTheRefundStaysReinstated() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        let refund = try TestLedger.notification("REFUND", about: purchase)
        let reversal = try TestChains.notification(
            type: "REFUND_REVERSED", uuid: TestChains.uuid(2), signedDate: reference + 2 * hour, around: purchase)
        try store.record(purchase)

        #expect(try store.record(refund).state == .refunded)
        let reinstated = try store.record(reversal)
        let late = try store.record(refund)

        #expect(reinstated == RecordResult(outcome: .applied, transactionId: id, state: .finished, finished: true))
        #expect(late == RecordResult(outcome: .duplicate, transactionId: id, state: .finished, finished: true))
        let row = try #require(try store.transaction(id))
        #expect(row.revocationDate == nil)
        #expect(row.refunded == 0)
        #expect(row.net == 990)
        #expect(try store.eventKinds(of: id) == ["recorded", "finished", "refunded", "refund_reversed"])
        #expect(try store.ledger.restore(account: account, includeAll: false).transactions.map(\.transactionId) == [id])
    }

    @Test func olderRefundArrivingAfterItsReversalStaysReinstated() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)
        try store.record(
            try TestLedger.notification("REFUND", about: purchase))
        try store.record(
            try TestChains.notification(
                type: "REFUND_REVERSED", uuid: TestChains.uuid(2), signedDate: reference + 3 * hour, around: purchase))

        // Another REFUND notification (its own UUID) signed before the reversal, delivered after it.
        let olderRefund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(3), signedDate: reference + 2 * hour, around: purchase)
        let result = try store.record(olderRefund)

        #expect(result == RecordResult(outcome: .recorded, transactionId: id, state: .finished, finished: true))
        #expect(try store.transaction(id)?.net == 990)
        #expect(try store.transaction(id)?.signedDate == reference + 3 * hour)
        #expect(
            try store.ledger.texts("SELECT effect FROM notifications WHERE notification_uuid = ?", [TestChains.uuid(3)])
                == ["stale"])
    }

    /// The tip bought three hours before the verifier's clock (`TestLedger.reference`), re-signed
    /// without a `signedDate` (docs/verification.md allows it; the verifier then checks it at the current
    /// time) and without revocation fields.
    func unsignedDateCopy() throws -> String {
        var fields = TestTransaction(
            transactionId: id, bundleId: "com.example.tips", productId: "com.example.tips.small", price: 990,
            currency: "USD", environment: "Sandbox", purchaseDate: reference - 3 * hour, appAccountToken: account)
        fields.omitsSignedDate = true
        return try JWSSigner(pki: TestChains.standard).sign(payload: fields.payloadJSON)
    }

    /// A payload without a signedDate counts as older than any signed one: it does not undo a
    /// refund signed before the verifier's clock read (docs/ledger.md, order-safe).
    @Test func aTransactionWithoutSignedDateDoesNotUndoASignedRefund() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, purchaseDate: reference - 3 * hour)
        try store.record(purchase)
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference - hour, around: purchase))
        let before = try store.events(of: id)

        let result = try store.record(try unsignedDateCopy())

        #expect(result.state == .refunded)
        let row = try #require(try store.transaction(id))
        #expect(row.revocationDate == reference - hour)
        #expect(row.net == 0)
        #expect(row.signedDate == reference - hour)
        #expect(try store.events(of: id) == before)
    }

    /// A first record from a payload without a signedDate is made, and any signed information
    /// that follows, however old, is newer than it.
    @Test func aSignedRefundAppliesOverARowRecordedWithoutSignedDate() throws {
        let store = try TestLedger()
        #expect(try store.record(try unsignedDateCopy()).outcome == .recorded)
        #expect(try store.transaction(id)?.signedDate == 0)

        let refund = try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference - 2 * hour,
                around: try TestChains.transaction(id: id, purchaseDate: reference - 3 * hour)))

        #expect(refund == RecordResult(outcome: .applied, transactionId: id, state: .refunded, finished: true))
        #expect(try store.transaction(id)?.net == 0)
    }

    /// Signed transaction info without a signedDate, inside a notification, is as new as the
    /// notification: a refund so signed is applied over the purchase signed before it.
    @Test func aRefundWhoseTransactionHasNoSignedDateIsApplied() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, purchaseDate: reference - 3 * hour)
        try store.record(purchase)

        let result = try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference - hour, around: purchase
            ) { $0.omitsSignedDate = true })

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: .refunded, finished: true))
        #expect(try store.transaction(id)?.signedDate == reference - hour)
    }

    /// A refund of a transaction not seen yet, its info undated, is as new as its
    /// notification: the purchase the app submits afterwards, signed before it, does not undo it.
    @Test func aPurchaseSignedBeforeAnUndatedRefundDoesNotUndoIt() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, purchaseDate: reference - 3 * hour)
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference - hour, around: purchase
            ) { $0.omitsSignedDate = true })

        let late = try store.record(purchase)

        #expect(late.state == .refunded)
        #expect(try store.transaction(id)?.net == 0)
    }

    /// A refund with no date at all, neither its notification's nor its transaction's, shows
    /// no time: arriving after a dated reversal, it does not undo it (docs/ledger.md), and two such
    /// notifications end the same whether recorded together or apart.
    @Test func anUndatedRefundDoesNotUndoADatedReversal() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, purchaseDate: reference - 4 * hour)
        try store.record(purchase)
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference - 3 * hour, around: purchase))
        try store.record(
            try TestChains.notification(
                type: "REFUND_REVERSED", uuid: TestChains.uuid(2), signedDate: reference - hour, around: purchase))

        let late = try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(3), around: purchase, omitsSignedDate: true
            ) { $0.omitsSignedDate = true })

        #expect(late.state == .finished)
        #expect(try store.transaction(id)?.net == 990)
        #expect(try store.transaction(id)?.signedDate == reference - hour)
    }

    /// The purchase, a refund an hour later, its reversal three hours later and another refund
    /// (its own UUID) signed two hours later; signed once for every ordering below.
    static let history: [String] = {
        let reference = TestLedger.reference
        let hour = TestLedger.hour
        do {
            let purchase = try TestChains.transaction(id: "2000000000000001")
            return [
                purchase,
                try TestLedger.notification("REFUND", about: purchase),
                try TestChains.notification(
                    type: "REFUND_REVERSED", uuid: TestChains.uuid(2), signedDate: reference + 3 * hour,
                    around: purchase),
                try TestChains.notification(
                    type: "REFUND", uuid: TestChains.uuid(3), signedDate: reference + 2 * hour, around: purchase),
            ]
        } catch {
            preconditionFailure("cannot sign the refund history: \(error)")
        }
    }()

    /// `history` delivered in every order: the newest signed information (the reversal) always
    /// wins.
    @Test(arguments: permutations(of: [0, 1, 2, 3]))
    func everyArrivalOrderEndsReinstated(order: [Int]) throws {
        let store = try TestLedger(inMemory: true)
        let inputs = Self.history

        for index in order { try store.record(inputs[index]) }

        let row = try #require(try store.transaction(id))
        #expect(row.state == "finished", "order \(order)")
        #expect(row.net == 990, "order \(order)")
        #expect(row.signedDate == reference + 3 * hour, "order \(order)")
        let events = try store.events(of: id)
        #expect(events.map(\.refunded).reduce(0, +) == 0, "order \(order)")
        #expect(events.map(\.gross).reduce(0, +) == 990, "order \(order)")
    }

    @Test func refundBeforeItsPurchaseRecordsTheTransactionAlreadyRefunded() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, price: 1990)
        let refund = try TestLedger.notification("REFUND", about: purchase)

        let applied = try store.record(refund)

        #expect(applied == RecordResult(outcome: .applied, transactionId: id, state: .refunded, finished: false))
        let row = try #require(try store.transaction(id))
        #expect(row.gross == 1990)
        #expect(row.refunded == 1990)
        #expect(row.account == account)
        #expect(
            try store.ledger.texts("SELECT effect FROM notifications WHERE notification_uuid = ?", [TestChains.uuid(1)])
                == ["recorded_refunded"])

        // The app submits the (older) purchase afterwards: it is finished but stays refunded.
        let submitted = try store.record(purchase)

        #expect(submitted == RecordResult(outcome: .duplicate, transactionId: id, state: .refunded, finished: true))
        #expect(try store.transaction(id)?.net == 0)
        #expect(try store.eventKinds(of: id) == ["recorded", "refunded", "finished"])
        #expect(try store.ledger.restore(account: account, includeAll: false).transactions.isEmpty)
        #expect(try store.ledger.pending().isEmpty)
    }

    /// `price × revocationPercentage / 100000`, rounded half up (docs/ledger.md).
    @Test(
        arguments: [
            (price: Int64(9990), percentage: Int32(33333), refunded: Int64(3330)),  // 3329.9667
            (9990, 5000, 500),  // 499.5: half up
            (999, 50000, 500),  // 499.5: half up
            (9990, 50000, 4995),
            (9990, 100_000, 9990),
            (1, 49999, 0),  // 0.49999
            (1, 50000, 1),  // 0.5
            (2970, 1, 0),  // 0.0297
        ])
    func proratedRefundRemovesThePercentageRoundedHalfUp(price: Int64, percentage: Int32, refunded: Int64) throws {
        let store = try TestLedger(inMemory: true)
        let purchase = try TestChains.transaction(id: id, price: price)
        try store.record(purchase)

        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + hour, around: purchase,
                revocationPercentage: percentage))

        let row = try #require(try store.transaction(id))
        #expect(row.revocationType == "REFUND_PRORATED")
        #expect(row.revocationPercentage == Int64(percentage))
        #expect(row.state == "refunded")
        #expect(row.refunded == refunded)
        #expect(row.net == price - refunded)
        let report = try store.ledger.report(ReportQuery(grouping: .currency), now: reference)
        #expect(report.rows.map(\.refundedMilli) == [refunded])
        #expect(report.rows.map(\.netMilli) == [price - refunded])
        let totals = try store.ledger.restore(account: account, includeAll: true).totals
        #expect(totals.map(\.netMilli) == [price - refunded])
    }

    @Test func revokeStopsTheTransactionCountingAndLeavesTheDefaultRestoreList() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id, price: 4990)
        try store.record(purchase)

        let result = try store.record(
            try TestLedger.notification("REVOKE", about: purchase))

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: .revoked, finished: true))
        let row = try #require(try store.transaction(id))
        #expect(row.revoked == 4990)
        #expect(row.refunded == 0)
        #expect(row.net == 0)
        #expect(
            try store.events(of: id).last
                == StoredEvent(kind: "revoked", source: TestChains.uuid(1), gross: 0, refunded: 0, revoked: 4990))
        #expect(try store.ledger.restore(account: account, includeAll: false).transactions.isEmpty)
        let all = try store.ledger.restore(account: account, includeAll: true)
        #expect(all.transactions.map(\.state) == [.revoked])
        #expect(all.transactions.map(\.finished) == [true])
        #expect(all.totals.map(\.netMilli) == [0])
        let rows = try store.ledger.report(ReportQuery(grouping: .product), now: reference).rows
        #expect(rows.map(\.revokedMilli) == [4990])
        #expect(rows.map(\.netMilli) == [0])
    }

    @Test func revokeOfAnUnknownTransactionRecordsItRevoked() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)

        let result = try store.record(
            try TestLedger.notification("REVOKE", about: purchase))

        #expect(result == RecordResult(outcome: .applied, transactionId: id, state: .revoked, finished: false))
        #expect(try store.transaction(id)?.net == 0)
    }

    @Test func refundDeclinedLeavesTheTransactionCounting() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)

        let result = try store.record(
            try TestLedger.notification("REFUND_DECLINED", about: purchase))

        #expect(result == RecordResult(outcome: .recorded, transactionId: id, state: .finished, finished: true))
        #expect(try store.transaction(id)?.net == 990)
        #expect(try store.eventKinds(of: id) == ["recorded", "finished", "refund_declined"])
    }
}

/// Every ordering of `items`.
func permutations<Element>(of items: [Element]) -> [[Element]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { index in
        var rest = items
        let first = rest.remove(at: index)
        return permutations(of: rest).map { [first] + $0 }
    }
}
