// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerRevocation

/// Online revocation checks against a real OCSP responder (`openssl ocsp`) on loopback, for a
/// test PKI whose certificates name it (docs/verification.md, "Online revocation checks").
@Suite(.serialized) struct OCSPCheckerTests {
    @Test(arguments: OnlineChecks.Mode.allCases)
    func aGoodChainVerifiesAfterAskingEachResponderOnce(_ mode: OnlineChecks.Mode) throws {
        let chain = try OnlineChain()
        let checker = OnlineChain.checker()

        let verified = try chain.verifier(mode, checker: checker).verifyTransaction(try chain.transaction())

        #expect(verified.transactionId == "2000000000000001")
        #expect(verified.context.usedClock, "a verdict of online checks is the current time's")
        #expect(chain.rootResponder.requestCount == 1)
        #expect(chain.leafResponder?.requestCount == 1)
        #expect(checker.counts.requests == 2)
        #expect(checker.counts.unavailable == 0)
    }

    @Test func aResponderTheIssuerDelegatedToIsTrusted() throws {
        var setup = OnlineChain.Setup()
        setup.delegatedLeafResponder = true
        let chain = try OnlineChain(setup)
        let checker = OnlineChain.checker()

        let result = try chain.verifier(.strict, checker: checker).verify(try chain.transaction())

        #expect(throws: Never.self) { try result.get() }
        #expect(chain.leafResponder?.requestCount == 1)
    }

    enum Revoked: String, CaseIterable {
        case leaf, intermediate
    }

    @Test(arguments: Revoked.allCases, OnlineChecks.Mode.allCases)
    func aRevokedCertificateIsRejectedInEitherMode(_ revoked: Revoked, _ mode: OnlineChecks.Mode) throws {
        var setup = OnlineChain.Setup()
        setup.revokedLeaf = revoked == .leaf
        setup.revokedIntermediate = revoked == .intermediate
        let chain = try OnlineChain(setup)
        let checker = OnlineChain.checker()

        let result = try chain.verifier(mode, checker: checker).verify(try chain.transaction())

        guard case .failure(let rejection) = result else {
            Issue.record("a revoked \(revoked) verified")
            return
        }
        #expect(rejection.code == .certificateRevoked)
        #expect(rejection.message.contains("the \(revoked.rawValue) certificate is revoked"), "\(rejection)")
        #expect(rejection.appleStatus == "VERIFICATION_FAILURE")
        #expect(checker.counts.revoked == 1)
    }

    enum Failure: String, CaseIterable {
        /// Nothing listens on the leaf's responder port.
        case down
        /// The leaf's responder signs with a key that is not the issuer's nor delegated by it.
        case forged
        /// The responses' nextUpdate is a minute on; the verifier's clock is ten minutes on.
        case stale
    }

    @Test(arguments: Failure.allCases, OnlineChecks.Mode.allCases)
    func anUntrustworthyAnswerRejectsWhenStrictAndVerifiesOfflineWhenBestEffort(
        _ failure: Failure, _ mode: OnlineChecks.Mode
    ) throws {
        var setup = OnlineChain.Setup()
        setup.leafResponderDown = failure == .down
        setup.forgedLeafResponses = failure == .forged
        setup.minutes = failure == .stale ? 1 : 60
        let chain = try OnlineChain(setup)
        let checker = OnlineChain.checker()
        let token = try chain.transaction()
        if failure == .stale { chain.clock.advance(by: .seconds(600)) }

        let result = try chain.verifier(mode, checker: checker).verify(token)

        switch (mode, result) {
        case (.strict, .failure(let error)):
            #expect(error.code == .revocationUnavailable, "\(error)")
            #expect(error.appleStatus == "RETRYABLE_VERIFICATION_FAILURE")
        case (.bestEffort, .success):
            break
        default:
            Issue.record("\(failure) in \(mode) mode gave \(result)")
        }
        #expect(checker.counts.unavailable >= 1)
        // The intermediate is asked about first; stale answers from its responder already end a
        // strict check.
        switch failure {
        case .down: #expect(chain.rootResponder.requestCount == 1)
        case .forged: #expect(chain.leafResponder?.requestCount == 1)
        case .stale: #expect(chain.leafResponder?.requestCount == (mode == .strict ? 0 : 1))
        }
    }

    @Test func aKeptAnswerIsNotAskedForAgainBeforeItsNextUpdate() throws {
        let chain = try OnlineChain()
        let checker = OnlineChain.checker()
        let verifier = try chain.verifier(.strict, checker: checker)

        for id in ["2000000000000001", "2000000000000002", "2000000000000003"] {
            _ = try verifier.verifyTransaction(try chain.transaction(id: id))
        }
        #expect(chain.rootResponder.requestCount == 1)
        #expect(chain.leafResponder?.requestCount == 1)
        #expect(checker.counts.cacheHits == 4)

        // Past nextUpdate (an hour), each certificate is asked about again. (The new answers,
        // made by the real clock, are within the allowed skew but already past their own
        // nextUpdate, so they are not kept.)
        chain.clock.advance(by: .seconds(3_660))
        _ = try verifier.verifyTransaction(try chain.transaction(id: "2000000000000004"))
        #expect(chain.rootResponder.requestCount == 2)
        #expect(chain.leafResponder?.requestCount == 2)
    }

    /// Eight verifications at once with nothing kept: each certificate is asked about once, and
    /// while the leaf's responder holds its request, the other seven wait for its answer rather
    /// than asking too.
    @Test func verificationsAtOnceShareOneRequestPerCertificate() throws {
        let held = try HeldResponder()
        var setup = OnlineChain.Setup()
        setup.leafResponderPort = held.port
        let chain = try OnlineChain(setup)
        let checker = OnlineChain.checker()
        let verifier = try chain.verifier(.bestEffort, checker: checker)
        let tokens = try (1...8).map { try chain.transaction(id: "200000000000000\($0)") }
        let verified = Mutex(0)
        let finished = DispatchGroup()
        for token in tokens {
            finished.enter()
            Thread {
                if (try? verifier.verifyTransaction(token)) != nil { verified.withLock { $0 += 1 } }
                finished.leave()
            }.start()
        }

        // Each verification settles the intermediate's status, then the leaf's: 16 in all, each
        // by a request, a kept answer or a wait for another's request. All but the held one are
        // settled once the 16 are counted.
        var waited = 0
        func settled(_ counts: RevocationCounts) -> Int { counts.requests + counts.cacheHits + counts.sharedAnswers }
        while (settled(checker.counts) < 16 || held.arrivals < 1) && waited < 3_000 {
            usleep(10_000)
            waited += 1
        }
        let whileHeld = checker.counts
        #expect(settled(whileHeld) == 16)
        #expect(whileHeld.requests == 2, "\(whileHeld)")
        #expect(whileHeld.sharedAnswers >= 7, "the seven after the leaf's first wait for its request")
        #expect(held.arrivals == 1)
        #expect(chain.rootResponder.requestCount == 1)

        held.gate.open()
        finished.wait()
        #expect(verified.withLock { $0 } == 8, "best effort verifies offline when the responder fails")
        #expect(checker.counts.requests == 2)
        #expect(checker.counts.unavailable == 8, "each verification counts the leaf's missing answer")
        #expect(held.arrivals == 1)
    }

    @Test func aFailedResponderIsNotAskedAgainForAMinuteButAfterIt() throws {
        var setup = OnlineChain.Setup()
        setup.forgedLeafResponses = true
        let chain = try OnlineChain(setup)
        let checker = OnlineChain.checker()
        let verifier = try chain.verifier(.bestEffort, checker: checker)

        _ = try verifier.verifyTransaction(try chain.transaction(id: "2000000000000001"))
        _ = try verifier.verifyTransaction(try chain.transaction(id: "2000000000000002"))
        #expect(chain.leafResponder?.requestCount == 1)

        chain.clock.advance(by: .seconds(61))
        _ = try verifier.verifyTransaction(try chain.transaction(id: "2000000000000003"))
        #expect(chain.leafResponder?.requestCount == 2)
    }
}
