// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Every signed version of a transaction carries the same purchase. One that contradicts the
/// recorded purchase is rejected, and the row and its evidence stay as they were.
@Suite struct ContradictionTests {
    let id = "2000000000000001"
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    func rejection(_ result: Result<RecordResult, VerificationError>) -> VerificationError? {
        guard case .failure(let rejection) = result else { return nil }
        return rejection
    }

    @Test func aNewerVersionWithAnotherProductAndPriceIsRejected() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id, price: 990))
        let before = try #require(try store.transaction(id))
        let other = try TestChains.transaction(
            id: id, productId: "com.example.tips.large", price: 5990, account: TestChains.uuid(7)
        ) { $0.signedDate = reference + hour }

        let results = try store.results(ofBatch: [other, try TestChains.transaction(id: "2000000000000002")])

        let rejected = try #require(rejection(results[0]))
        #expect(rejected.code == .invalidPayload)
        #expect(
            rejected.message
                == "it contradicts the recorded transaction \(id): its productId, price, appAccountToken differ")
        #expect((try? results[1].get())?.outcome == .recorded)
        #expect(try store.transaction(id) == before)
        #expect(try store.count("evidence") == 2)
        #expect(try store.eventKinds(of: id) == ["recorded", "finished"])
    }

    @Test func anOlderVersionThatContradictsIsRejectedToo() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id) { $0.signedDate = reference + hour })

        let results = try store.results(ofBatch: [try TestChains.transaction(id: id, currency: "EUR")])

        #expect(try #require(rejection(results[0])).message.hasSuffix("its currency differs"))
    }

    @Test func aRefundCarryingAContradictingTransactionIsRejectedWhole() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id, price: 990))
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + hour,
            around: try TestChains.transaction(id: id, price: 99_000))

        let results = try store.results(ofBatch: [refund])

        let rejected = try #require(rejection(results[0]))
        #expect(rejected.message.hasPrefix("data.signedTransactionInfo: it contradicts the recorded transaction"))
        #expect(try store.count("notifications") == 0)
        #expect(try store.transaction(id)?.state == "finished")
    }

    /// A token already stored is a repeat, whatever it says: a notification carried it for a
    /// transaction the ledger did not know, and the app then recorded another version. Through
    /// the one-by-one path and a batch alike, it is answered as a duplicate and changes
    /// nothing; a new token saying the same is rejected.
    @Test func aStoredTokenIsARepeatEvenWhenTheRecordedTransactionDiffers() throws {
        for batched in [false, true] {
            let store = try TestLedger()
            let notification = try TestChains.notification(
                type: "DID_RENEW", uuid: TestChains.uuid(1), signedDate: reference + hour,
                around: try TestChains.transaction(id: id, price: 5000))
            // The signed transaction info exactly as the notification carried it.
            guard case .notification(let verified) = try TestChains.verified(notification),
                let carried = verified.transaction?.jws
            else {
                Issue.record("the notification carries no transaction")
                return
            }
            try store.record(notification)
            #expect(try store.transaction(id) == nil)
            try store.record(try TestChains.transaction(id: id, price: 990) { $0.signedDate = reference + 2 * hour })
            let before = try #require(try store.transaction(id))
            let evidence = try store.count("evidence")

            let repeated: RecordResult?
            if batched {
                let recorder = store.ledger.batchRecorder()
                repeated = try? recorder.record([try TestChains.verified(carried)], finish: true)[0].get()
                try recorder.commit()
            } else {
                repeated = try? store.results(ofBatch: [carried])[0].get()
            }
            let contradicting = try store.results(
                ofBatch: [try TestChains.transaction(id: id, price: 7000) { $0.signedDate = reference + 3 * hour }])

            #expect(repeated?.outcome == .duplicate, "\(String(describing: repeated))")
            #expect(rejection(contradicting[0])?.code == .invalidPayload)
            #expect(try store.transaction(id) == before)
            #expect(try store.count("evidence") == evidence)
        }
    }

    /// What one version lacks is no contradiction: an account learnt later is added, and a
    /// version without one keeps it.
    @Test func aFieldOneVersionLacksIsNotComparedAndAnAccountIsLearnt() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: id, account: nil))

        let withAccount = try store.record(
            try TestChains.transaction(id: id, account: TestChains.uuid(3)) { $0.signedDate = reference + hour })
        let withoutAccount = try store.record(
            try TestChains.transaction(id: id, account: nil) { $0.signedDate = reference + 2 * hour })

        #expect(withAccount.outcome == .updated)
        #expect(withoutAccount.outcome == .updated)
        #expect(try store.transaction(id)?.account == TestChains.uuid(3))
    }

    @Test func anAccountDifferingOnlyInLetterCaseIsTheSame() throws {
        let store = try TestLedger()
        let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        try store.record(try TestChains.transaction(id: id, account: account))

        let upper = try store.record(
            try TestChains.transaction(id: id, account: account.uppercased()) { $0.signedDate = reference + hour })

        #expect(upper.outcome == .updated)
    }
}
