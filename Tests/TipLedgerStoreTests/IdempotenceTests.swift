// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Idempotence (docs/ledger.md): the same transaction JWS or notificationUUID twice is recorded once.
@Suite struct IdempotenceTests {
    let id = "2000000000000001"
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    @Test func sameTransactionTokenTwiceRecordsOnce() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: id)

        let first = try store.record(token)
        let second = try store.record(token)

        #expect(first == RecordResult(outcome: .recorded, transactionId: id, state: .finished, finished: true))
        #expect(second == RecordResult(outcome: .duplicate, transactionId: id, state: .finished, finished: true))
        #expect(try store.count("transactions") == 1)
        #expect(try store.count("evidence") == 1)
        #expect(try store.eventKinds(of: id) == ["recorded", "finished"])
    }

    /// LocalTesting is Apple's other name for Xcode's environment (docs/verification.md): one transaction
    /// signed under each name is one row, under Xcode.
    @Test func aTransactionUnderLocalTestingAndXcodeIsOneRow() throws {
        let store = try TestLedger()
        let verifier = try TestChains.verifier(environments: [.xcode])
        let xcode = try TestChains.transaction(id: id, environment: "Xcode")
        let localTesting = try TestChains.transaction(id: id, environment: "LocalTesting") {
            $0.signedDate = reference + hour
        }

        let first = try store.ledger.record(try TestChains.verified(localTesting, by: verifier), finish: true)
        let second = try store.ledger.record(try TestChains.verified(xcode, by: verifier), finish: true)

        #expect(first == RecordResult(outcome: .recorded, transactionId: id, state: .finished, finished: true))
        // Older than the LocalTesting copy: stale, so a duplicate of the row it would update.
        #expect(second == RecordResult(outcome: .duplicate, transactionId: id, state: .finished, finished: true))
        #expect(try store.ledger.texts("SELECT environment FROM transactions", []) == ["Xcode"])
        #expect(try store.count("evidence") == 2)
    }

    @Test func newerSignedCopyOfATransactionUpdatesIt() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id))
        let before = try #require(try store.transaction(id))

        let newer = try TestChains.transaction(id: id) { $0.signedDate = reference + hour }
        let result = try store.record(newer)

        #expect(result == RecordResult(outcome: .updated, transactionId: id, state: .finished, finished: true))
        let after = try #require(try store.transaction(id))
        #expect(after.signedDate == reference + hour)
        #expect(after.evidenceId != before.evidenceId)
        #expect(after.net == before.net)
        #expect(try store.count("transactions") == 1)
    }

    @Test func newerSignedCopyCarryingARefundUpdatesItsState() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id))

        let refunded = try TestChains.transaction(id: id) {
            $0.adjust(for: "REFUND", signedDate: reference + hour, revocationReason: 1)
        }
        let result = try store.record(refunded)

        #expect(result == RecordResult(outcome: .updated, transactionId: id, state: .refunded, finished: true))
        let row = try #require(try store.transaction(id))
        #expect(row.revocationDate == reference + hour)
        #expect(row.revocationReason == 1)
        #expect(row.net == 0)
        #expect(
            try store.events(of: id).last
                == StoredEvent(kind: "refunded", source: "client", gross: 0, refunded: 990, revoked: 0))
    }

    @Test func olderSignedCopyOfATransactionIsADuplicateAndChangesNothing() throws {
        let store = try TestLedger()
        let newer = try TestChains.transaction(id: id) {
            $0.adjust(for: "REFUND", signedDate: reference + hour)
        }
        try store.record(newer)
        let before = try #require(try store.transaction(id))
        let eventsBefore = try store.events(of: id)

        let older = try TestChains.transaction(id: id)
        let result = try store.record(older)

        #expect(result == RecordResult(outcome: .duplicate, transactionId: id, state: .refunded, finished: true))
        #expect(try store.transaction(id) == before)
        #expect(try store.events(of: id) == eventsBefore)
    }

    @Test func sameNotificationUUIDTwiceAppliesOnce() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        let uuid = TestChains.uuid(1)
        let refund = try TestChains.notification(
            type: "REFUND", uuid: uuid, signedDate: reference + hour, around: purchase)
        try store.record(purchase)

        let first = try store.record(refund)
        let second = try store.record(refund)

        #expect(first == RecordResult(outcome: .applied, transactionId: id, state: .refunded, finished: true))
        #expect(second == RecordResult(outcome: .duplicate, transactionId: id, state: .refunded, finished: true))
        #expect(try store.count("notifications") == 1)
        #expect(try store.eventKinds(of: id) == ["recorded", "finished", "refunded"])
    }

    @Test func sameNotificationUUIDSignedAgainInAnotherCaseIsADuplicate() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: id)
        let uuid = TestChains.uuid(0xabc)
        try store.record(purchase)
        try store.record(
            try TestChains.notification(type: "REFUND", uuid: uuid, signedDate: reference + hour, around: purchase))

        // A new signature over the same notification (the App Store's retry), UUID upper-cased.
        let again = try TestChains.notification(
            type: "REFUND", uuid: uuid.uppercased(), signedDate: reference + hour, around: purchase)
        let result = try store.record(again)

        #expect(result.outcome == .duplicate)
        #expect(try store.count("notifications") == 1)
        #expect(try store.eventKinds(of: id).filter { $0 == "refunded" }.count == 1)
    }
}
