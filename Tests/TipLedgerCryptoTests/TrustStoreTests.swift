// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@Suite struct TrustStoreTests {
    /// 2025-11-01T02:09:35Z, the effective date Apple's library tests pin for chain checks.
    static let libraryEffectiveDate: Int64 = 1_761_962_975

    private struct RealChain {
        let leaf: Certificate
        let intermediate: Certificate
        let root: Certificate

        init() throws {
            leaf = try Fixtures.appleLibraryCertificate("certs/apple-real/Prod-ECC-receipt-signing-leaf-2025.der")
            intermediate = try Fixtures.appleLibraryCertificate("certs/apple-real/AppleWWDRCA-G6.der")
            root = try Fixtures.appleLibraryCertificate("certs/apple-real/AppleRootCA-G3.der")
        }
    }

    private func isUntrusted(_ result: Result<ValidatedChain, ChainValidationError>) -> Bool {
        if case .failure(.untrusted) = result { return true }
        return false
    }

    private func isNotValidAtTime(_ result: Result<ValidatedChain, ChainValidationError>) -> Bool {
        if case .failure(.notValidAtTime) = result { return true }
        return false
    }

    // MARK: The real Apple chain

    @Test func realAppleChainValidatesAgainstTheG3Root() throws {
        let chain = try RealChain()
        let store = try TrustStore(roots: [chain.root])
        let validated = try store.validate(
            leaf: chain.leaf, intermediate: chain.intermediate, atSeconds: Self.libraryEffectiveDate
        ).get()
        #expect(validated.root.isByteEqual(to: chain.root))
        #expect(validated.leaf.isByteEqual(to: chain.leaf))
        #expect(
            [validated.leaf, validated.intermediate, validated.root].allSatisfy {
                $0.isValid(atSeconds: Self.libraryEffectiveDate)
            })
    }

    @Test func realAppleChainIsUntrustedAgainstTheTestRoot() throws {
        let chain = try RealChain()
        let store = try TrustStore(roots: [try Fixtures.appleLibraryCertificate("certs/test-chain-a/testCA.der")])
        #expect(
            isUntrusted(
                store.validate(leaf: chain.leaf, intermediate: chain.intermediate, atSeconds: Self.libraryEffectiveDate)
            ))
    }

    @Test func realAppleChainIsNotValidOnceTheLeafExpired() throws {
        let chain = try RealChain()
        let store = try TrustStore(roots: [chain.root])
        #expect(
            isNotValidAtTime(
                store.validate(leaf: chain.leaf, intermediate: chain.intermediate, atSeconds: 1_823_449_643)))
        #expect(
            isNotValidAtTime(
                store.validate(leaf: chain.leaf, intermediate: chain.intermediate, atSeconds: 1_758_311_090)))
        // Long after: still a time error, not a trust error.
        #expect(
            isNotValidAtTime(
                store.validate(leaf: chain.leaf, intermediate: chain.intermediate, atSeconds: 2_280_949_246)))
    }

    @Test func theIntermediateIsNeverTakenAsTheAnchor() throws {
        let chain = try RealChain()
        // Trusting only the intermediate does not make it a root: the chain must end at a root.
        let store = try TrustStore(roots: [chain.intermediate])
        #expect(
            isUntrusted(
                store.validate(leaf: chain.leaf, intermediate: chain.intermediate, atSeconds: Self.libraryEffectiveDate)
            ))
    }

    // MARK: Minted chains

    @Test func mintedChainValidatesAtTheReferenceTime() throws {
        let pki = TestChains.standard
        let store = try TrustStore(roots: [pki.root])
        let validated = try store.validate(
            leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: TestChains.referenceSeconds
        ).get()
        #expect(validated.root.isByteEqual(to: pki.root))
        #expect(store.containsExactly(pki.root))
        #expect(!store.containsExactly(pki.leaf))
    }

    @Test func aStoreWithSeveralRootsFindsTheRightOne() throws {
        let store = try TrustStore(roots: [TestChains.other.root, TestChains.standard.root])
        for pki in [TestChains.standard, TestChains.other] {
            let validated = try store.validate(
                leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: TestChains.referenceSeconds
            ).get()
            #expect(validated.root.isByteEqual(to: pki.root))
        }
    }

    @Test func mintedChainIsUntrustedByAnotherRoot() throws {
        let store = try TrustStore(roots: [TestChains.other.root])
        let pki = TestChains.standard
        #expect(
            isUntrusted(
                store.validate(leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: TestChains.referenceSeconds)))
    }

    @Test func aLeafFromAnotherPKIDoesNotChainToThisIntermediate() throws {
        let store = try TrustStore(roots: [TestChains.standard.root])
        #expect(
            isUntrusted(
                store.validate(
                    leaf: TestChains.other.leaf, intermediate: TestChains.standard.intermediate,
                    atSeconds: TestChains.referenceSeconds)))
    }

    @Test func mintedChainIsNotValidOutsideItsValidity() throws {
        let pki = TestChains.standard
        let store = try TrustStore(roots: [pki.root])
        #expect(
            isNotValidAtTime(
                store.validate(leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: pki.root.notAfter)))
        #expect(
            isNotValidAtTime(
                store.validate(leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: pki.root.notBefore - 1)))
    }

    @Test func anIntermediateThatIsNotACAIsRefusedByOpenSSL() throws {
        let pki = TestChains.intermediateNotCA
        let store = try TrustStore(roots: [pki.root])
        #expect(!pki.intermediate.hasCABasicConstraint)
        #expect(
            isUntrusted(
                store.validate(leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: TestChains.referenceSeconds)))
    }

    @Test func brokenVariantsStillChainButLackWhatTheVerifierChecks() throws {
        let leafMarker = AppleMarkerOID.receiptSigningLeaf
        let intermediateMarker = AppleMarkerOID.wwdrIntermediate
        let standard = TestChains.standard
        #expect(
            standard.leaf.hasExtension(oid: leafMarker) && standard.intermediate.hasExtension(oid: intermediateMarker))

        let variants: [(name: String, pki: TestPKI, lacks: (TestPKI) -> Bool)] = [
            ("leafHasMarker=false", TestChains.leafWithoutMarker, { !$0.leaf.hasExtension(oid: leafMarker) }),
            (
                "intermediateHasMarker=false", TestChains.intermediateWithoutMarker,
                { !$0.intermediate.hasExtension(oid: intermediateMarker) }
            ),
            ("leafIsCA=true", TestChains.leafIsCA, { $0.leaf.mayActAsCA && $0.leaf.hasCABasicConstraint }),
            ("leafCurve=.p384", TestChains.leafP384, { (try? $0.leaf.publicKey().isP256) == false }),
        ]
        for variant in variants {
            let store = try TrustStore(roots: [variant.pki.root])
            let result = store.validate(
                leaf: variant.pki.leaf, intermediate: variant.pki.intermediate, atSeconds: TestChains.referenceSeconds)
            #expect((try? result.get()) != nil, "\(variant.name) does not chain: \(result)")
            #expect(variant.lacks(variant.pki), "\(variant.name)")
        }
        // The markers present are the other ones: each variant breaks exactly one thing.
        #expect(TestChains.leafWithoutMarker.intermediate.hasExtension(oid: intermediateMarker))
        #expect(TestChains.intermediateWithoutMarker.leaf.hasExtension(oid: leafMarker))
    }

    @Test func minting384BitKeysGivesP384Certificates() throws {
        #expect(try TestChains.leafP384.leaf.publicKey().curveName == "secp384r1")
        #expect(try TestChains.leafP384.intermediate.publicKey().isP256)
    }
}
