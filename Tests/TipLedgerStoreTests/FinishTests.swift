// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Finishing (docs/ledger.md): verify finishes unless told not to; `finish` finishes pending ones once.
@Suite struct FinishTests {
    let id = "2000000000000001"
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    @Test func transactionRecordedWithFinishIsFinished() throws {
        let store = try TestLedger()

        let result = try store.record(try TestChains.transaction(id: id), finish: true)

        #expect(result.state == .finished)
        #expect(result.finished == true)
        #expect(try store.transaction(id)?.finishedMilliseconds == reference)
        #expect(try store.ledger.pending().isEmpty)
    }

    @Test func transactionRecordedWithoutFinishIsPendingUntilFinished() throws {
        let store = try TestLedger()

        let result = try store.record(try TestChains.transaction(id: id), finish: false)

        #expect(result == RecordResult(outcome: .recorded, transactionId: id, state: .pending, finished: false))
        let pending = try store.ledger.pending()
        #expect(pending.map(\.transactionId) == [id])
        #expect(pending.map(\.state) == [.pending])
        #expect(pending.map(\.finished) == [false])

        let results = try store.ledger.finish([id])

        #expect(results == [FinishResult(transactionId: id, environment: .sandbox, outcome: .finished)])
        #expect(try store.transaction(id)?.state == "finished")
        #expect(try store.ledger.pending().isEmpty)
        #expect(try store.events(of: id).map { "\($0.kind) \($0.source)" } == ["recorded client", "finished finish"])
    }

    @Test func pendingListsOnlyTheEnvironmentsAskedFor() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: "2000000000000001"), finish: false)
        try store.record(
            try TestChains.transaction(id: "2000000000000002", environment: "Production", purchaseDate: reference + 1),
            finish: false)

        #expect(try store.ledger.pending().map(\.transactionId) == ["2000000000000001", "2000000000000002"])
        #expect(try store.ledger.pending(environments: [.sandbox]).map(\.transactionId) == ["2000000000000001"])
        #expect(try store.ledger.pending(environments: [.production]).map(\.transactionId) == ["2000000000000002"])
        #expect(try store.ledger.pending(environments: [.xcode]).isEmpty)
    }

    @Test func finishingTwiceIsAlreadyFinishedAndAnUnknownIdIsNotFound() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id), finish: false)

        let results = try store.ledger.finish([id, id, "2999999999999999"], environments: [.sandbox])

        #expect(results.map(\.outcome) == [.finished, .alreadyFinished, .notFound])
        #expect(results.map(\.environment) == [.sandbox, .sandbox, nil])
        #expect(try store.eventKinds(of: id) == ["recorded", "finished"])
    }

    @Test func transactionFinishedAtVerifyIsAlreadyFinished() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id), finish: true)

        #expect(try store.ledger.finish([id]).map(\.outcome) == [.alreadyFinished])
    }

    @Test func submittingAPendingTransactionAgainWithFinishFinishesIt() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: id)
        try store.record(token, finish: false)

        let result = try store.record(token, finish: true)

        #expect(result == RecordResult(outcome: .duplicate, transactionId: id, state: .finished, finished: true))
    }

    @Test func finishingInOneEnvironmentLeavesTheOtherPending() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id, environment: "Sandbox"), finish: false)
        try store.record(try TestChains.transaction(id: id, environment: "Production"), finish: false)

        #expect(try store.ledger.finish([id], environments: [.production]).map(\.outcome) == [.finished])

        #expect(try store.transaction(id, environment: "Production")?.state == "finished")
        #expect(try store.transaction(id, environment: "Sandbox")?.state == "pending")
        // One result for each environment holding the id.
        #expect(
            try store.ledger.finish([id]) == [
                FinishResult(transactionId: id, environment: .production, outcome: .alreadyFinished),
                FinishResult(transactionId: id, environment: .sandbox, outcome: .finished),
            ])
        #expect(try store.ledger.pending().isEmpty)
    }

    @Test func finishingSearchesOnlyTheEnvironmentsGiven() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id, environment: "Production"), finish: false)

        #expect(try store.ledger.finish([id], environments: [.sandbox, .xcode]).map(\.outcome) == [.notFound])
        #expect(try store.transaction(id, environment: "Production")?.state == "pending")
        #expect(try store.ledger.finish([id], environments: [.sandbox, .production]).map(\.outcome) == [.finished])
    }

    @Test func refundedWinsOverFinishedWhileFinishedStaysTrue() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase, finish: true)

        let result = try store.record(
            try TestLedger.notification("REFUND", about: purchase))

        #expect(result.state == .refunded)
        #expect(result.finished == true)
        let record = try #require(
            try store.ledger.restore(account: "7e3fb20b-4cdb-47cc-936d-99d65f608138", includeAll: true).transactions
                .first)
        #expect(record.state == .refunded)
        #expect(record.finished)
        #expect(record.finishedMilliseconds == reference)
    }

    @Test func refundedUnfinishedTransactionIsNotPendingButCanBeFinished() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase, finish: false)
        try store.record(
            try TestLedger.notification("REFUND", about: purchase))

        #expect(try store.ledger.pending().isEmpty)
        #expect(try store.ledger.finish([id]).map(\.outcome) == [.finished])
        let row = try #require(try store.transaction(id))
        #expect(row.state == "refunded")
        #expect(row.finishedMilliseconds != nil)
    }
}
