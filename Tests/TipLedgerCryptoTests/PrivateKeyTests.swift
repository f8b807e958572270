// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@Suite struct PrivateKeyTests {
    static let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9".utf8)

    @Test func generatedKeySignsWhatItsPublicKeyVerifies() throws {
        let key = try PrivateKey.generate()
        let publicKey = try key.publicKey
        #expect(publicKey.isP256)
        let signature = try key.signES256(Self.message)
        #expect(signature.count == 64)
        #expect(publicKey.isValidES256Signature(signature, over: Self.message))
    }

    @Test func tamperedMessageOrSignatureFails() throws {
        let key = try PrivateKey.generate()
        let publicKey = try key.publicKey
        let signature = try key.signES256(Self.message)
        var tampered = Self.message
        tampered[tampered.count - 1] ^= 0x01
        #expect(!publicKey.isValidES256Signature(signature, over: tampered))
        #expect(!publicKey.isValidES256Signature(signature, over: Self.message + [0x20]))
        var flipped = signature
        flipped[63] ^= 0x01
        #expect(!publicKey.isValidES256Signature(flipped, over: Self.message))
        #expect(!publicKey.isValidES256Signature(Array(signature.dropLast()), over: Self.message))
    }

    @Test func anotherKeysSignatureFails() throws {
        let signature = try PrivateKey.generate().signES256(Self.message)
        #expect(!(try PrivateKey.generate().publicKey.isValidES256Signature(signature, over: Self.message)))
    }

    @Test func derSignaturesVerifyAsDER() throws {
        let key = try PrivateKey.generate()
        let der = try key.signDER(Self.message)
        let publicKey = try key.publicKey
        #expect(Self.message.withUnsafeBytes { publicKey.isValidSignature(der: der, over: $0) })
        #expect(!Self.message.dropFirst().withUnsafeBytes { publicKey.isValidSignature(der: der, over: $0) })
    }

    @Test func pemRoundTripKeepsTheKey() throws {
        let key = try PrivateKey.generate()
        let pem = key.pemEncoded
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let restored = try PrivateKey(pemEncoded: pem)
        #expect(try restored.publicKey.subjectPublicKeyInfo == key.publicKey.subjectPublicKeyInfo)
        #expect(restored.pemEncoded == pem)
        let signature = try restored.signES256(Self.message)
        #expect(try key.publicKey.isValidES256Signature(signature, over: Self.message))
    }

    @Test func libraryTestKeysReadFromSEC1AndPKCS8() throws {
        let leafKey = try PrivateKey(pemEncoded: try Fixtures.text("apple-library/keys/testLeaf.key"))
        let leaf = try Fixtures.appleLibraryCertificate("certs/test-chain-a/testLeaf.pem")
        // The key belongs to the library's test leaf certificate.
        #expect(try leafKey.publicKey.subjectPublicKeyInfo == leaf.publicKey().subjectPublicKeyInfo)
        let signature = try leafKey.signES256(Self.message)
        #expect(try leaf.publicKey().isValidES256Signature(signature, over: Self.message))

        let signingKey = try PrivateKey(pemEncoded: try Fixtures.text("apple-library/keys/testSigningKey.p8"))
        #expect(try signingKey.publicKey.isP256)
    }

    @Test func p384KeysAreNotES256() throws {
        let key = try PrivateKey.generate(curve: .p384)
        #expect(try key.publicKey.curveName == "secp384r1")
        #expect(try !key.publicKey.isP256)
        #expect(throws: CryptoError.self) { try key.signES256(Self.message) }
        // Its DER signatures are still ordinary ECDSA with SHA-256.
        let der = try key.signDER(Self.message)
        #expect(try Self.message.withUnsafeBytes { try key.publicKey.isValidSignature(der: der, over: $0) })
    }

    @Test func textThatIsNotAKeyIsRefused() {
        #expect(throws: CryptoError.self) { try PrivateKey(pemEncoded: "") }
        #expect(throws: CryptoError.self) {
            try PrivateKey(pemEncoded: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }

    @Test func publicKeysReadFromTheirOwnEncoding() throws {
        let key = try PrivateKey.generate().publicKey
        let copy = try PublicKey(subjectPublicKeyInfo: key.subjectPublicKeyInfo)
        #expect(copy.subjectPublicKeyInfo == key.subjectPublicKeyInfo)
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: [0x30, 0x00]) }
    }

    @Test func sha256MatchesAKnownDigest() {
        #expect(
            SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func aHashedPrefixFinishesToTheDigestOfTheWholeMessage() {
        // 200 bytes: splits fall before, on and after SHA-256's 64-byte block boundaries.
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let whole = SHA256.hash(message)
        for split in [0, 1, 63, 64, 65, 128, 199, 200] {
            let head = Array(message[..<split])
            let tail = Array(message[split...])
            let prefix = head.withUnsafeBytes { SHA256Prefix($0) }
            #expect(prefix.byteCount == split)
            #expect(tail.withUnsafeBytes { prefix.hash(continuingWith: $0) } == whole, "split at \(split)")
            // The prefix is not consumed: a second message from it finishes as its own digest.
            #expect([UInt8]().withUnsafeBytes { prefix.hash(continuingWith: $0) } == SHA256.hash(head))
        }
        // A prefix of several parts is their concatenation.
        let parts = [Array(message[..<10]), Array(message[10..<100])]
        let twoParts = parts[0].withUnsafeBytes { first in parts[1].withUnsafeBytes { SHA256Prefix(first, $0) } }
        #expect(Array(message[100...]).withUnsafeBytes { twoParts.hash(continuingWith: $0) } == whole)
    }
}
