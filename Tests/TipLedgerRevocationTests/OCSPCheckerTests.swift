// SPDX-License-Identifier: GPL-3.0-or-later
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
