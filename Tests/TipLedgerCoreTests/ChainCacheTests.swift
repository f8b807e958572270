// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerCore

/// The verifier's cache of validated chains: it saves work, never a check.
@Suite struct ChainCacheTests {
    private let day: Int64 = 86_400_000

    @Test func aCachedChainIsStillRejectedOutsideItsValidity() throws {
        let pki = TestChains.shortLivedLeaf
        let verifier = try TestChains.verifier(trusting: pki)
        #expect(verifier.rejection(of: try TestJWS.sign(TestPayloads.transaction(), pki: pki)) == nil)
        #expect(verifier.chains.count == 1)

        let late = try TestJWS.sign(
            TestPayloads.transaction(["signedDate": String(pki.leaf.notAfter * 1000 + day)]), pki: pki)
        #expect(verifier.rejection(of: late) == .certificateNotValidAtSignedDate)
        let early = try TestJWS.sign(
            TestPayloads.transaction(["signedDate": String(pki.leaf.notBefore * 1000 - day)]), pki: pki)
        #expect(verifier.rejection(of: early) == .certificateNotValidAtSignedDate)
        // Both were answered from the cache: still one chain.
        #expect(verifier.chains.count == 1)
        // A fresh verifier (no cache) says the same.
        #expect(try TestChains.verifier(trusting: pki).rejection(of: late) == .certificateNotValidAtSignedDate)
    }

    /// The chain is valid only while all three certificates are: a payload inside the leaf's
    /// validity but outside the intermediate's or the root's is rejected, from the cache too.
    @Test(arguments: [("intermediate", TestChains.shortLivedIntermediate), ("root", TestChains.shortLivedRoot)])
    func aCachedChainIsRejectedOutsideItsIntermediatesOrRootsValidity(_ name: String, _ pki: TestPKI) throws {
        let shortLived = name == "root" ? pki.root : pki.intermediate
        #expect(shortLived.notAfter < pki.leaf.notAfter && shortLived.notBefore > pki.leaf.notBefore)
        let verifier = try TestChains.verifier(trusting: pki)
        #expect(verifier.rejection(of: try TestJWS.sign(TestPayloads.transaction(), pki: pki)) == nil)

        for milliseconds in [shortLived.notAfter * 1000 + day, shortLived.notBefore * 1000 - day] {
            let token = try TestJWS.sign(TestPayloads.transaction(["signedDate": String(milliseconds)]), pki: pki)
            #expect(verifier.rejection(of: token) == .certificateNotValidAtSignedDate, "cached, \(name)")
            #expect(
                try TestChains.verifier(trusting: pki).rejection(of: token) == .certificateNotValidAtSignedDate,
                "fresh, \(name)")
        }
        #expect(verifier.chains.count == 1)
    }

    @Test func cachedAndFreshVerifiersAgreeAtTheValidityBoundaries() throws {
        let pki = TestChains.shortLivedLeaf
        let cached = try TestChains.verifier(trusting: pki)
        _ = cached.rejection(of: try TestJWS.sign(TestPayloads.transaction(), pki: pki))
        let boundaries: [(milliseconds: Int64, valid: Bool)] = [
            (pki.leaf.notBefore * 1000 - 1, false), (pki.leaf.notBefore * 1000, true),
            (pki.leaf.notAfter * 1000 - 1, true), (pki.leaf.notAfter * 1000, false),
        ]
        for (milliseconds, valid) in boundaries {
            let token = try TestJWS.sign(TestPayloads.transaction(["signedDate": String(milliseconds)]), pki: pki)
            let expected: VerificationError.Code? = valid ? nil : .certificateNotValidAtSignedDate
            #expect(cached.rejection(of: token) == expected, "cached, at \(milliseconds)")
            #expect(
                try TestChains.verifier(trusting: pki).rejection(of: token) == expected, "fresh, at \(milliseconds)")
        }
        #expect(cached.chains.count == 1)
    }

    @Test(arguments: ["-62167219200000", "-62135769600000", "0", "253402300799999"])
    func cachedAndFreshVerifiersAgreeAtTheEdgesOfTheCalendar(_ signedDate: String) throws {
        // The cache compares seconds itself; OpenSSL compares X.509 times. Both must say
        // "not valid at the signed date" for every date a payload may carry.
        let cached = try TestChains.verifier()
        #expect(cached.rejection(of: try TestJWS.sign(TestPayloads.transaction())) == nil)
        let token = try TestJWS.sign(TestPayloads.transaction(["signedDate": signedDate]))
        #expect(cached.rejection(of: token) == .certificateNotValidAtSignedDate)
        #expect(try TestChains.verifier().rejection(of: token) == .certificateNotValidAtSignedDate)
    }

    /// Two trusted roots with one name and key but different validity (a root re-issued with
    /// a longer life, both kept): the window cached for the first payload is that of the root
    /// OpenSSL chose then, and a payload outside it but inside the other root's is accepted, as a
    /// fresh verifier accepts it, whichever token comes first and however often.
    @Test func aPayloadOutsideTheCachedRootsValidityIsCheckedAgainstTheOtherRoots() throws {
        let pki = TestChains.shortLivedRoot
        let reissued = try Certificate.mint(
            CertificateTemplate(
                subject: [("CN", "tipledger TEST Root CA"), ("O", "tipledger TEST")], serialNumber: 9,
                notBefore: pki.intermediate.notBefore, notAfter: pki.intermediate.notAfter, isCA: true,
                keyUsage: "critical,keyCertSign,cRLSign"),
            subjectKey: pki.rootKey, issuer: nil)
        func verifier() throws -> Verifier {
            Verifier(
                trustStore: try TrustStore(roots: [pki.root, reissued]),
                policy: VerificationPolicy(bundleIds: ["com.example.tips"], environments: [.sandbox]),
                clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
        }
        let now = try TestJWS.sign(TestPayloads.transaction(), pki: pki)
        let later = try TestJWS.sign(
            TestPayloads.transaction(["signedDate": String(pki.root.notAfter * 1000 + 30 * day)]), pki: pki)
        let beyond = try TestJWS.sign(
            TestPayloads.transaction(["signedDate": String(reissued.notAfter * 1000 + day)]), pki: pki)
        #expect(try verifier().rejection(of: later) == nil, "fresh")
        #expect(try verifier().rejection(of: beyond) == .certificateNotValidAtSignedDate, "fresh")

        let cached = try verifier()
        for (index, token) in [now, later, later, now, beyond, later].enumerated() {
            let expected: VerificationError.Code? = token == beyond ? .certificateNotValidAtSignedDate : nil
            #expect(cached.rejection(of: token) == expected, "token \(index)")
        }
    }

    @Test func aCachedChainDoesNotExcuseABadSignatureOrAThirdCertificate() throws {
        let verifier = try TestChains.verifier()
        let token = try TestJWS.sign(TestPayloads.transaction())
        #expect(verifier.rejection(of: token) == nil)
        let forged = TestJWS.replacingPayload(of: token, with: TestPayloads.transaction(["price": "1"]))
        #expect(verifier.rejection(of: forged) == .badSignature)
        let x5c = TestJWS.x5c(TestChains.standard.chain)
        let garbageThird = try TestJWS.sign(
            header: TestJWS.header(x5c: Array(x5c[0...1]) + ["AAAA"]), payload: TestPayloads.transaction(),
            key: TestChains.standard.leafKey)
        #expect(verifier.rejection(of: garbageThird) == .invalidCertificate)
        // Any certificate may stand in x5c[2]; it is not the anchor.
        let otherThird = try TestJWS.sign(
            header: TestJWS.header(x5c: Array(x5c[0...1]) + TestJWS.x5c([TestChains.other.root])),
            payload: TestPayloads.transaction(), key: TestChains.standard.leafKey)
        #expect(verifier.rejection(of: otherThird) == nil)
        #expect(verifier.chains.count == 1)
    }

    @Test func aChainIsCachedOnlyForTheVerifierThatTrustsIt() throws {
        let token = try TestJWS.sign(TestPayloads.transaction())
        let trusting = try TestChains.verifier()
        #expect(trusting.rejection(of: token) == nil)
        let other = try TestChains.verifier(trusting: TestChains.other)
        #expect(other.rejection(of: token) == .untrustedChain)
        #expect(other.rejection(of: token) == .untrustedChain)
        #expect(other.chains.count == 0)
    }

    @Test func theCacheIsBounded() throws {
        let pki = TestChains.standard
        let chain = try TrustStore(roots: [pki.root]).validate(
            leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: TestChains.referenceSeconds
        ).get()
        let cache = ChainCache(capacity: 4)
        let entry = ChainCache.Entry(chain: chain, leafKey: try pki.leaf.publicKey(), thirdCertificate: "root")
        for index in 0..<10 {
            cache.store(entry, for: ChainCache.Key(leaf: "leaf \(index)", intermediate: "intermediate"))
            #expect(cache.count <= 4)
        }
        #expect(cache.count == 4)
        // The newest entry is always kept.
        #expect(cache.entry(for: ChainCache.Key(leaf: "leaf 9", intermediate: "intermediate")) != nil)
        // Storing an existing key again does not evict anything.
        cache.store(entry, for: ChainCache.Key(leaf: "leaf 9", intermediate: "intermediate"))
        #expect(cache.count == 4)
    }

    @Test func theVerifiersCacheStaysWithinItsCapacityAcrossManyChains() throws {
        let pki = TestChains.standard
        let verifier = try TestChains.verifier()
        let capacity = verifier.chains.capacity
        for serial in 0..<UInt64(capacity + 6) {
            let leafKey = try PrivateKey.generate()
            let leaf = try Certificate.mint(
                CertificateTemplate(
                    subject: [("CN", "tipledger TEST Receipt Signing \(serial)")], serialNumber: 100 + serial,
                    notBefore: pki.leaf.notBefore, notAfter: pki.leaf.notAfter, isCA: false,
                    keyUsage: "critical,digitalSignature", markerOIDs: [AppleMarkerOID.receiptSigningLeaf]),
                subjectKey: leafKey, issuer: (pki.intermediate, pki.intermediateKey))
            let token = try TestJWS.sign(
                header: TestJWS.header(chain: [leaf, pki.intermediate, pki.root]), payload: TestPayloads.transaction(),
                key: leafKey)
            #expect(verifier.rejection(of: token) == nil, "leaf \(serial)")
            #expect(verifier.chains.count <= capacity)
        }
        #expect(verifier.chains.count == capacity)
    }

    @Test func oneVerifierGivesTheSameVerdictsFromManyTasksAtOnce() async throws {
        let verifier = try TestChains.verifier(trusting: TestChains.shortLivedLeaf)
        let pki = TestChains.shortLivedLeaf
        let good = try TestJWS.sign(TestPayloads.transaction(), pki: pki)
        let late = try TestJWS.sign(
            TestPayloads.transaction(["signedDate": String(pki.leaf.notAfter * 1000)]), pki: pki)
        let forged = TestJWS.replacingPayload(of: good, with: TestPayloads.transaction(["price": "1"]))
        let foreign = try TestJWS.sign(TestPayloads.transaction())
        let cases: [(String, VerificationError.Code?)] = [
            (good, nil), (late, .certificateNotValidAtSignedDate), (forged, .badSignature), (foreign, .untrustedChain),
        ]
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<25 {
                        let (token, expected) = cases[(task + round) % cases.count]
                        if verifier.rejection(of: token) != expected { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(verifier.chains.count == 1)
    }

    /// `String`'s `==` is canonical equivalence, under which a Kelvin sign (U+212A) equals "K":
    /// text that is not base64 must not pass for a certificate seen before.
    @Test func aThirdCertificateSeenBeforeExcusesOnlyItsExactText() throws {
        let pki = TestChains.standard
        let chain = Array(TestJWS.x5c(pki.chain)[0...1])
        // Any certificate may stand in x5c[2]; Apple's root is fixed text with a "K" in it.
        let third = try #require(TestJWS.x5c([TrustAnchors.appleRootCAG3]).first)
        let kelvin = String(third.map { $0 == "K" ? "\u{212A}" : $0 })
        try #require(!kelvin.utf8.elementsEqual(third.utf8), "the root's text has no K to replace")
        #expect(kelvin == third, "String's == says the two texts are equal")
        func token(_ third: String) throws -> String {
            try TestJWS.sign(
                header: TestJWS.header(x5c: chain + [third]), payload: TestPayloads.transaction(), key: pki.leafKey)
        }
        #expect(try TestChains.verifier().rejection(of: try token(kelvin)) == .invalidCertificate, "fresh")
        let cached = try TestChains.verifier()
        #expect(cached.rejection(of: try token(third)) == nil)
        #expect(cached.rejection(of: try token(kelvin)) == .invalidCertificate, "cached")
    }

    @Test func cacheKeysCompareTheExactBytesNotCanonicallyEquivalentText() {
        let certificate = ChainCache.Key(leaf: "MIIBKoZI", intermediate: "MIIC")
        let kelvin = ChainCache.Key(leaf: "MIIB\u{212A}oZI", intermediate: "MIIC")
        #expect(certificate != kelvin)
        let kelvinIntermediate = ChainCache.Key(leaf: "MIIBKoZI", intermediate: "MII\u{212A}")
        #expect(ChainCache.Key(leaf: "MIIBKoZI", intermediate: "MIIK") != kelvinIntermediate)
        #expect(certificate == ChainCache.Key(leaf: "MIIBKoZI", intermediate: "MIIC"))
    }

    @Test func cacheKeysCompareTheWholeText() {
        let a = ChainCache.Key(leaf: "A" + String(repeating: "x", count: 100), intermediate: "I")
        let b = ChainCache.Key(leaf: "B" + String(repeating: "x", count: 100), intermediate: "I")
        // Same length and suffix (all the hash looks at); still different keys.
        #expect(a != b)
        var set: Set<ChainCache.Key> = [a]
        set.insert(b)
        #expect(set.count == 2)
    }
}
