// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Answers to consumption requests in the ledger (`consumption_answers`): a request is claimed
/// before its answer is sent, answered once, and never past its deadline or once decided.
@Suite struct ConsumptionAnswerStoreTests {
    static let id = "2000000000000801"
    static let uuid = TestChains.uuid(801)
    static let hour = TestLedger.hour
    static let reference = TestLedger.reference
    static let claim: Duration = .seconds(600)

    /// A finished tip with a consumption request signed an hour after the reference time, in a
    /// ledger whose clock says the reference time plus `hours`.
    static func ledgerWithARequest() throws -> TestLedger {
        let store = try TestLedger(now: reference + 2 * hour)
        let purchase = try TestChains.transaction(id: id)
        try store.record(purchase)
        try store.record(
            try TestChains.notification(
                type: "CONSUMPTION_REQUEST", uuid: uuid, signedDate: reference + hour, around: purchase))
        return store
    }

    /// The same ledger file, read with a clock at the reference time plus `hours`.
    static func at(_ hours: Int64, _ store: TestLedger) throws -> Ledger {
        try Ledger.open(path: store.path, clock: .fixed(AppleDate(wholeMilliseconds: reference + hours * hour)))
    }

    @Test func anOpenRequestIsListedWithWhatTheLedgerKnows() throws {
        let store = try Self.ledgerWithARequest()
        let requests = try store.ledger.consumptionRequests(
            now: AppleDate(wholeMilliseconds: Self.reference + 2 * Self.hour))
        #expect(
            requests == [
                ConsumptionRequestRecord(
                    notificationUUID: Self.uuid, environment: .sandbox, transactionId: Self.id,
                    reason: "UNINTENDED_PURCHASE", requested: AppleDate(wholeMilliseconds: Self.reference + Self.hour),
                    deadline: AppleDate(wholeMilliseconds: Self.reference + 13 * Self.hour), state: .finished,
                    finished: true, productType: "Consumable", decided: false, answer: nil)
            ])
    }

    @Test func aRequestIsClaimedOnceAndAnsweredOnce() throws {
        let store = try Self.ledgerWithARequest()
        let ledger = store.ledger
        #expect(try ledger.claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
        #expect(try !ledger.claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim), "claimed already")
        try ledger.recordConsumptionAnswer(Self.uuid, status: 202, error: nil)
        #expect(try !Self.at(12, store).claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
        let answer = try #require(
            try ledger.consumptionRequests(now: AppleDate(wholeMilliseconds: Self.reference)).first?.answer)
        #expect(
            answer
                == ConsumptionAnswer(
                    body: "{}", sent: AppleDate(wholeMilliseconds: Self.reference + 2 * Self.hour), appleStatus: 202,
                    error: nil, answered: AppleDate(wholeMilliseconds: Self.reference + 2 * Self.hour)))
    }

    @Test func aSendThatGotNoAnswerMayBeTriedAgain() throws {
        let store = try Self.ledgerWithARequest()
        #expect(try store.ledger.claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
        try store.ledger.recordConsumptionAnswer(Self.uuid, status: nil, error: "timed out")
        #expect(try store.ledger.claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
    }

    @Test func aClaimWhoseSenderDiedLapses() throws {
        let store = try Self.ledgerWithARequest()
        #expect(try store.ledger.claimConsumptionAnswer(Self.uuid, body: "{}", claim: .seconds(3600)))
        #expect(try !Self.at(2, store).claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
        #expect(try Self.at(3, store).claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
    }

    @Test func aRequestPastItsDeadlineOrDecidedIsNotClaimed() throws {
        let store = try Self.ledgerWithARequest()
        #expect(try !Self.at(13, store).claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
        let decided = try Self.ledgerWithARequest()
        try decided.record(
            try TestChains.notification(
                type: "REFUND_DECLINED", uuid: TestChains.uuid(802), signedDate: Self.reference + 2 * Self.hour,
                around: try TestChains.transaction(id: Self.id)))
        #expect(try !decided.ledger.claimConsumptionAnswer(Self.uuid, body: "{}", claim: Self.claim))
        #expect(
            try decided.ledger.consumptionRequests(now: AppleDate(wholeMilliseconds: Self.reference)).first?.decided
                == true)
    }
}
