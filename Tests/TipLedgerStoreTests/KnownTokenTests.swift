// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `Ledger.knownToken`: an exact repeat is answered from the ledger only when verifying and
/// recording it again could not give another answer.
@Suite struct KnownTokenTests {
    let id = "2000000000000501"
    let fingerprint = TestChains.standardVerifier.fingerprint

    private func digest(_ token: String) -> [UInt8] {
        SHA256.hash(token.utf8)
    }

    @Test func aRecordedTransactionIsKnownWithWhatRecordingItAgainWouldSay() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: id)
        let again = try store.record(token)
        let known = try #require(
            try store.ledger.knownToken(digest(token), verifierFingerprint: fingerprint, finishing: true))
        #expect(known.kind == .transaction)
        #expect(known.environment == .sandbox)
        #expect(
            known.result == RecordResult(outcome: .duplicate, transactionId: id, state: again.state, finished: true))
        #expect(known.productId == "com.example.tips.small")
        #expect(known.account == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        // The full path says the same for the same token.
        #expect(try store.record(token) == known.result)
    }

    @Test func aLedgerHoldsEvidenceOnceATokenIsRecorded() throws {
        let store = try TestLedger()
        #expect(try !store.ledger.holdsEvidence())

        try store.record(try TestChains.transaction(id: id))

        #expect(try store.ledger.holdsEvidence())
    }

    @Test func aTokenIsNotKnownToAVerifierWithOtherRootsOrPolicy() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: id)
        try store.record(token)
        let otherBundle = try TestChains.verifier(bundleId: "com.example.other")
        let otherRoot = try TestChains.verifier(trusting: TestChains.other)
        #expect(otherBundle.fingerprint != fingerprint && otherRoot.fingerprint != fingerprint)
        for other in [otherBundle, otherRoot] {
            #expect(
                try store.ledger.knownToken(digest(token), verifierFingerprint: other.fingerprint, finishing: true)
                    == nil)
        }
    }

    @Test func aTokenCheckedAtTheClocksTimeIsNeverKnown() throws {
        // Without a signedDate the verdict depends on when it is checked, so a repeat is verified again.
        let store = try TestLedger()
        let token = try TestJWS.sign(TestPayloads.transaction(["signedDate": nil]), pki: TestChains.standard)
        try store.record(token)
        #expect(try store.count("transactions") == 1)
        #expect(
            try store.ledger.knownToken(digest(token), verifierFingerprint: fingerprint, finishing: true) == nil)
    }

    @Test func anUnfinishedTransactionIsNotKnownWhenTheRunFinishes() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: id)
        try store.record(token, finish: false)
        let key = digest(token)
        #expect(try store.ledger.knownToken(key, verifierFingerprint: fingerprint, finishing: true) == nil)
        let pending = try #require(try store.ledger.knownToken(key, verifierFingerprint: fingerprint, finishing: false))
        #expect(pending.result.state == .pending && pending.result.finished == false)
    }

    @Test func aRecordedNotificationIsKnownWithItsTransactionsState() throws {
        let store = try TestLedger()
        let transaction = try TestChains.transaction(id: id)
        try store.record(transaction)
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(501), signedDate: TestLedger.reference + TestLedger.hour,
            around: transaction)
        try store.record(refund)
        let known = try #require(
            try store.ledger.knownToken(digest(refund), verifierFingerprint: fingerprint, finishing: true))
        #expect(known.kind == .notification)
        #expect(known.notificationType == "REFUND")
        #expect(known.notificationUUID == TestChains.uuid(501))
        #expect(known.result == RecordResult(outcome: .duplicate, transactionId: id, state: .refunded, finished: true))
        #expect(try store.record(refund) == known.result)
    }

    @Test func aTokenOnlyCarriedByANotificationIsNotKnownAsATransaction() throws {
        // A renewal notification stores its nested transaction as evidence without recording it;
        // when the app submits that very token, it must be recorded, not called a repeat.
        let store = try TestLedger()
        let transaction = try TestChains.transaction(id: id)
        let renewal = try TestChains.notification(type: "DID_RENEW", uuid: TestChains.uuid(502), around: transaction)
        try store.record(renewal)
        let nested = try #require(try TestChains.verified(renewal).nestedTransactionToken)
        #expect(
            try store.ledger.knownToken(digest(nested), verifierFingerprint: fingerprint, finishing: true) == nil)
        let recorded = try store.record(nested)
        #expect(recorded.outcome == .recorded)
        #expect(try store.count("transactions") == 1)
    }

    @Test func manyDigestsAreAnsweredInOrderInOneCall() throws {
        let store = try TestLedger()
        let first = try TestChains.transaction(id: id)
        let second = try TestChains.transaction(id: "2000000000000502")
        let unknown = try TestChains.transaction(id: "2000000000000503")
        _ = try store.record(first)
        _ = try store.record(second)
        let answers = try store.ledger.knownTokens(
            [digest(second), digest(unknown), digest(first), digest(second)],
            verifierFingerprint: fingerprint, finishing: true)
        #expect(answers.map { $0?.result.transactionId } == ["2000000000000502", nil, id, "2000000000000502"])
        #expect(try store.ledger.knownTokens([], verifierFingerprint: fingerprint, finishing: true).isEmpty)
    }

    /// A token stored under another verifier's fingerprint (other roots or policy, or an
    /// earlier version of the checks) is verified again on its next repeat; once recorded again,
    /// it stands for this verifier's verdict, and later repeats are answered from the ledger.
    @Test(arguments: ["transaction", "notification"])
    func aTokenVerifiedAgainIsKnownToTheVerifierThatDidIt(_ kind: String) throws {
        let store = try TestLedger()
        let transaction = try TestChains.transaction(id: id)
        let token =
            kind == "transaction"
            ? transaction
            : try TestChains.notification(type: "REFUND", uuid: TestChains.uuid(503), around: transaction)
        try store.record(token)
        let earlier = [UInt8](repeating: 0xee, count: 32)
        _ = try store.ledger.withDatabase { try $0.run("UPDATE evidence SET verifier_fingerprint = ?", earlier) }
        #expect(
            try store.ledger.knownToken(digest(token), verifierFingerprint: fingerprint, finishing: true) == nil)

        try store.record(token)

        #expect(
            try store.ledger.knownToken(digest(token), verifierFingerprint: fingerprint, finishing: true) != nil)
        #expect(try store.count("evidence") == (kind == "transaction" ? 1 : 2))
    }

    @Test func anUnknownTokenIsNotKnown() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: id)
        #expect(
            try store.ledger.knownToken(digest(token), verifierFingerprint: fingerprint, finishing: false) == nil)
    }
}

extension VerifiedPayload {
    /// The `data.signedTransactionInfo` a verified notification carried.
    fileprivate var nestedTransactionToken: String? {
        guard case .notification(let notification) = self else { return nil }
        return notification.transaction?.jws
    }
}
