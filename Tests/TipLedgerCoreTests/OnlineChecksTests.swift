// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// What the verifier does with online checks, whatever asks the responder
/// (docs/verification.md, "Online revocation checks"); the checker is a table here.
@Suite struct OnlineChecksTests {
    static let pki = TestChains.standard

    func verifier(
        _ mode: OnlineChecks.Mode, _ statuses: [(Certificate, RevocationStatus)] = [],
        now: Int64 = TestChains.referenceMilliseconds
    ) throws -> (Verifier, TestRevocationChecker) {
        let checker = TestRevocationChecker(statuses)
        return (try TestChains.verifier(now: now, onlineChecks: OnlineChecks(mode: mode, checker: checker)), checker)
    }

    @Test(arguments: OnlineChecks.Mode.allCases)
    func aRevokedLeafOrIntermediateIsRejectedInEitherMode(_ mode: OnlineChecks.Mode) throws {
        for certificate in [Self.pki.leaf, Self.pki.intermediate] {
            let (verifier, _) = try verifier(mode, [(certificate, .revoked("since today"))])
            // Twice: the second time the chain comes from the caches, and is still asked about.
            for _ in 0..<2 {
                #expect(verifier.rejection(of: try TestChains.transaction()) == .certificateRevoked)
            }
        }
    }

    @Test func noAnswerRejectsWhenStrictAndVerifiesWhenBestEffort() throws {
        let statuses: [(Certificate, RevocationStatus)] = [(Self.pki.leaf, .unavailable("down"))]
        let (strict, _) = try verifier(.strict, statuses)
        #expect(strict.rejection(of: try TestChains.transaction()) == .revocationUnavailable)
        let (bestEffort, checker) = try verifier(.bestEffort, statuses)
        #expect(bestEffort.rejection(of: try TestChains.transaction()) == nil)
        #expect(checker.counts.unavailable == 1)
    }

    @Test func theIntermediateThenTheLeafAreAskedAboutOnlyAfterTheSignature() throws {
        let (verifier, checker) = try verifier(.strict)
        _ = try verifier.verifyTransaction(try TestChains.transaction())
        #expect(checker.counts.requests == 2)

        let valid = try TestChains.transaction()
        var signature = TestJWS.signature(of: valid)
        signature[20] ^= 0x04
        #expect(verifier.rejection(of: TestJWS.replacingSignature(of: valid, with: signature)) == .badSignature)
        #expect(checker.counts.requests == 2, "a forged token costs no request")
    }

    /// Online, the chain is checked at the clock's time, not the payload's `signedDate`.
    @Test func theChainIsCheckedAtTheClocksTime() throws {
        let afterLeaf = (Self.pki.leaf.notAfter + 86_400) * 1000
        let signedLate = try TestChains.transaction(purchaseDate: afterLeaf)
        let (atReference, _) = try verifier(.strict)
        let verified = try atReference.verifyTransaction(signedLate)
        #expect(verified.context.usedClock)
        #expect(verified.effectiveDate == AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds))
        #expect(try TestChains.verifier().rejection(of: signedLate) == .certificateNotValidAtSignedDate, "offline")

        let (late, _) = try verifier(.strict, now: afterLeaf)
        #expect(late.rejection(of: try TestChains.transaction()) == .certificateNotValidAtSignedDate)
    }
}
