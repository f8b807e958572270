// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerCore

/// Decoded headers are kept by their exact text: a repeat skips decoding, anything else does not.
@Suite struct HeaderCacheTests {
    @Test func tokensOfOneChainShareOneDecodedHeader() throws {
        let verifier = try TestChains.verifier()
        for id in ["2000000000000601", "2000000000000602", "2000000000000603"] {
            _ = try verifier.verifyTransaction(try TestChains.transaction(id: id))
        }
        #expect(verifier.headers.count == 1)
        // Another chain's token (untrusted here) has another header.
        #expect(
            verifier.rejection(of: try TestChains.transaction(id: "2000000000000604", pki: TestChains.other))
                == .untrustedChain)
        #expect(verifier.headers.count == 2)
    }

    @Test func aHeaderDifferingInOneCharacterIsDecodedAfresh() throws {
        let verifier = try TestChains.verifier()
        let genuine = try TestChains.transaction(id: "2000000000000611")
        _ = try verifier.verifyTransaction(genuine)
        // Same length, one character of the header changed: must not be taken for the cached one.
        // Decoded afresh, it is no JSON; taken for the cached header, its signature would be
        // what failed.
        var header = Array(genuine.split(separator: ".")[0].utf8)
        header[10] = header[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let altered =
            String(decoding: header, as: UTF8.self) + "." + genuine.split(separator: ".", maxSplits: 1)[1]
        #expect(verifier.rejection(of: altered) == .malformedJWS)
        #expect(verifier.rejection(of: genuine) == nil)
    }

    /// A token is hashed once, from the cached header's state when there is one: its signing
    /// input and the whole token, whatever surrounds it on its line.
    @Test func digestsContinuedFromACachedHeaderAreTheTokensOwn() throws {
        let verifier = try TestChains.verifier()
        let first = try TestChains.transaction(id: "2000000000000621")
        let second = try TestChains.transaction(id: "2000000000000622")
        func signingInput(_ token: String) -> Substring { token[..<token.lastIndex(of: ".")!] }
        #expect(verifier.headers.count == 0)
        for token in [first, second] {
            for line in [token, "  \(token)\r", #"{"signedPayload":"\#(token)"}"#] {
                let read = try verifier.parse(line: line)
                #expect(read.digest == SHA256.hash(token.utf8))
                #expect(read.signingInputDigest == SHA256.hash(signingInput(token).utf8))
            }
        }
        // The first line read put the header in the cache; the others continued from it.
        #expect(verifier.headers.count == 1)
        let notJSON = #expect(throws: VerificationError.self) { try verifier.parse(line: "{not json") }
        #expect(notJSON?.code == .malformedJWS)
        // Another token with the cached header still verifies through the continued digest,
        // and one whose payload was changed does not.
        _ = try verifier.verifyTransaction(second)
        var parts = second.split(separator: ".").map(String.init)
        parts[1] = try TestChains.transaction(id: "2000000000000623").split(separator: ".").map(String.init)[1]
        #expect(verifier.rejection(of: parts.joined(separator: ".")) == .badSignature)
    }

    @Test func aResolvedHeaderSkipsOnlyWhatItsBytesDecide() throws {
        let pki = TestChains.shortLivedLeaf
        let verifier = try TestChains.verifier(trusting: pki)
        let good = try TestJWS.sign(TestPayloads.transaction(), pki: pki)
        let segment = Array(good.utf8.prefix { $0 != UInt8(ascii: ".") })
        #expect(segment.withUnsafeBufferPointer { verifier.headers.header(for: $0)?.chain } == nil)
        #expect(verifier.rejection(of: good) == nil)
        // The header now names its validated chain.
        #expect(segment.withUnsafeBufferPointer { verifier.headers.header(for: $0)?.chain } != nil)
        // Tokens with that header still have their time, signature and payload checked.
        let day: Int64 = 86_400_000
        let late = try TestJWS.sign(
            TestPayloads.transaction(["signedDate": String(pki.leaf.notAfter * 1000 + day)]), pki: pki)
        #expect(late.hasPrefix(String(decoding: segment, as: UTF8.self) + "."))
        #expect(verifier.rejection(of: late) == .certificateNotValidAtSignedDate)
        var parts = good.split(separator: ".").map(String.init)
        let another = try TestJWS.sign(TestPayloads.transaction(["transactionId": "\"2000000000000002\""]), pki: pki)
        parts[1] = another.split(separator: ".").map(String.init)[1]
        #expect(verifier.rejection(of: parts.joined(separator: ".")) == .badSignature)
        let otherBundle = try TestJWS.sign(TestPayloads.transaction(["bundleId": "\"com.example.other\""]), pki: pki)
        #expect(verifier.rejection(of: otherBundle) == .wrongBundleId)
        #expect(verifier.rejection(of: good) == nil)
    }

    /// A line read by one verifier may be verified by another; the chain the first resolved
    /// its header to says nothing of the second's roots or policy.
    @Test func aHeaderResolvedByOneVerifierIsNotTrustedByAnother() throws {
        func rejection(_ result: Result<VerifiedPayload, VerificationError>) -> VerificationError.Code? {
            if case .failure(let error) = result { error.code } else { nil }
        }
        let token = try TestJWS.sign(TestPayloads.transaction())
        let trusting = try TestChains.verifier()
        #expect(rejection(trusting.verify(try trusting.parse(line: token))) == nil)
        // Read again, the line's header names the chain `trusting` validated.
        let resolved = try trusting.parse(line: token)
        let other = try TestChains.verifier(trusting: TestChains.other)
        #expect(rejection(other.verify(resolved)) == .untrustedChain)
        #expect(rejection(trusting.verify(resolved)) == nil)
    }

    @Test func theCacheIsBounded() throws {
        let cache = HeaderCache(capacity: 3)
        for index in 0..<10 {
            let text = Array("header-\(index)".utf8)
            _ = text.withUnsafeBufferPointer { cache.remember(["n": .integer(Int64(index))], for: $0) }
        }
        #expect(cache.count == 3)
        let last = Array("header-9".utf8)
        #expect(last.withUnsafeBufferPointer { cache.header(for: $0)?.header } == ["n": .integer(9)])
        let first = Array("header-0".utf8)
        #expect(first.withUnsafeBufferPointer { cache.header(for: $0) } == nil)
    }
}
