// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@Suite struct TrustAnchorTests {
    /// The fingerprint written in `keys/README.md`, in lowercase.
    private func readmeFingerprint() throws -> String {
        let readme = String(decoding: try Fixtures.projectBytes("keys/README.md"), as: UTF8.self)
        let hexDigits = Set("0123456789abcdefABCDEF")
        let tokens = readme.split(whereSeparator: { !hexDigits.contains($0) }).filter { $0.count == 64 }
        try #require(tokens.count == 1, "keys/README.md should give exactly one SHA-256 fingerprint")
        return String(tokens[0]).lowercased()
    }

    @Test func embeddedRootIsTheShippedKeysFile() throws {
        #expect(TrustAnchors.appleRootCAG3DER == (try Fixtures.projectBytes("keys/AppleRootCA-G3.cer")))
        #expect(
            TrustAnchors.appleRootCAG3DER == (try Fixtures.bytes("apple-library/certs/apple-real/AppleRootCA-G3.der")))
    }

    @Test func embeddedRootHasThePublishedFingerprint() throws {
        let digest = SHA256.hexDigest(TrustAnchors.appleRootCAG3DER)
        #expect(digest == (try readmeFingerprint()))
        #expect(digest == TrustAnchors.appleRootCAG3Fingerprint)
        #expect(hex(TrustAnchors.appleRootCAG3.sha256Fingerprint) == TrustAnchors.appleRootCAG3Fingerprint)
    }

    @Test func embeddedRootIsTheAppleRootCAG3() {
        let root = TrustAnchors.appleRootCAG3
        #expect(root.subject.contains("CN=Apple Root CA - G3"))
        #expect(root.subject == root.issuer)
        #expect(root.hasCABasicConstraint)
        #expect(root.derEncoded == TrustAnchors.appleRootCAG3DER)
    }
}
