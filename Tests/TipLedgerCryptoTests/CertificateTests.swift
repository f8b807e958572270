// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@Suite struct CertificateTests {
    static let appleRootFingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"
    static let leafMarker = "1.2.840.113635.100.6.11.1"
    static let intermediateMarker = "1.2.840.113635.100.6.2.1"

    private func appleReal(_ name: String) throws -> Certificate {
        try Fixtures.appleLibraryCertificate("certs/apple-real/\(name)")
    }

    // MARK: Parsing

    @Test func derCertificateParsesToTheSameBytes() throws {
        let bytes = try Fixtures.bytes("apple-library/certs/apple-real/AppleRootCA-G3.der")
        let certificate = try Certificate(derEncoded: bytes)
        #expect(certificate.derEncoded == bytes)
        #expect(certificate.subject.contains("CN=Apple Root CA - G3"))
        #expect(certificate.subject == certificate.issuer)
    }

    @Test func pemAndDERCopiesOfTheTestRootAreTheSameCertificate() throws {
        let pem = try Certificate.parseAll(
            fileContents: try Fixtures.bytes("apple-library/certs/test-chain-a/testCA.pem"))
        let der = try Fixtures.bytes("apple-library/certs/test-chain-a/testCA.der")
        #expect(pem.count == 1)
        #expect(pem.first?.derEncoded == der)
    }

    @Test func pemAfterATextDumpIsFound() throws {
        let bytes = try Fixtures.bytes("apple-library/certs/test-chain-a/testLeaf.pem")
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("Certificate:"))
        let certificates = try Certificate.parseAll(fileContents: bytes)
        try #require(certificates.count == 1)
        let leaf = certificates[0]
        #expect(leaf.subject.contains("O=Leaf"))
        #expect(leaf.hasExtension(oid: Self.leafMarker))
        // The README gives the leaf's SubjectPublicKeyInfo.
        let spki = Data(
            base64Encoded:
                "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4rWBxGmFbnPIPQI0zsBKzLxsj8pD2vqbr0yPISUx2WQyxmrNql9fhK8YEEyYFV7++p5i4YUSR/o9uQIgCPIhrA=="
        )
        #expect(try leaf.publicKey().subjectPublicKeyInfo == spki.map { [UInt8]($0) })
    }

    @Test func everyPEMBlockOfAFileIsRead() throws {
        let leaf = try Fixtures.bytes("apple-library/certs/test-chain-a/testLeaf.pem")
        let intermediate = try Fixtures.bytes("apple-library/certs/test-chain-a/testIntermediate.pem")
        let both = try Certificate.parseAll(fileContents: leaf + Array("\nsome text between\n".utf8) + intermediate)
        #expect(both.count == 2)
        #expect(both.map(\.subject).contains { $0.contains("O=Intermediate") })
    }

    @Test func pemEncodingRoundTrips() throws {
        let root = try appleReal("AppleRootCA-G3.der")
        #expect(root.pemEncoded.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let again = try Certificate.parseAll(fileContents: Array(root.pemEncoded.utf8))
        #expect(again.map(\.derEncoded) == [root.derEncoded])
    }

    @Test func derWithTrailingBytesIsRefused() throws {
        let bytes = try Fixtures.bytes("apple-library/certs/apple-real/AppleRootCA-G3.der")
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: bytes + [0x00]) }
        #expect(throws: CryptoError.self) { try Certificate.parseAll(fileContents: bytes + bytes) }
    }

    @Test(arguments: [
        [UInt8](),
        [0x30, 0x00],
        [0x30, 0x82, 0x02, 0x43, 0x30],
        Array("not a certificate".utf8),
        Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8),
    ])
    func garbageIsNotACertificate(_ bytes: [UInt8]) {
        #expect(throws: CryptoError.self) { try Certificate.parseAll(fileContents: bytes) }
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: bytes) }
    }

    @Test func truncatedDERIsRefused() throws {
        let bytes = try Fixtures.bytes("apple-library/certs/apple-real/AppleRootCA-G3.der")
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: Array(bytes.dropLast())) }
    }

    // MARK: Contents

    @Test func appleRootFingerprintIsApplesPublishedOne() throws {
        let root = try Certificate(derEncoded: try Fixtures.projectBytes("keys/AppleRootCA-G3.cer"))
        #expect(hex(root.sha256Fingerprint) == Self.appleRootFingerprint)
    }

    @Test func validityPeriodsAreReadInSecondsSince1970() throws {
        let root = try appleReal("AppleRootCA-G3.der")
        #expect(root.notBefore == 1_398_881_946)  // 2014-04-30T18:19:06Z
        #expect(root.notAfter == 2_187_800_346)  // 2039-04-30T18:19:06Z
        let intermediate = try appleReal("AppleWWDRCA-G6.der")
        #expect(intermediate.notBefore == 1_616_013_430)  // 2021-03-17T20:37:10Z
        #expect(intermediate.notAfter == 2_089_497_600)  // 2036-03-19T00:00:00Z
        let leaf = try appleReal("Prod-ECC-receipt-signing-leaf-2025.der")
        #expect(leaf.notBefore == 1_758_311_091)  // 2025-09-19T19:44:51Z
        #expect(leaf.notAfter == 1_823_449_643)  // 2027-10-13T17:47:23Z
    }

    @Test func mintedValidityIsWhatTheTemplateSaid() {
        let pki = TestChains.shortLivedLeaf
        #expect(pki.leaf.notBefore == TestChains.referenceSeconds - 10 * 86_400)
        #expect(pki.leaf.notAfter == TestChains.referenceSeconds + 10 * 86_400)
        #expect(pki.root.notBefore == TestChains.referenceSeconds - 180 * 86_400)
        #expect(pki.root.notAfter == TestChains.referenceSeconds + 180 * 86_400)
    }

    @Test(arguments: [nil, "DNS:localhost"])
    func mintedSubjectAlternativeNamesAreWrittenOnlyWhenAsked(_ names: String?) throws {
        let key = try PrivateKey.generate(curve: .p256)
        var template = CertificateTemplate(
            subject: [("CN", "localhost")], serialNumber: 9, notBefore: TestChains.referenceSeconds,
            notAfter: TestChains.referenceSeconds + 86_400, isCA: false)
        template.subjectAlternativeNames = names
        let certificate = try Certificate.mint(template, subjectKey: key, issuer: nil)
        #expect(certificate.hasExtension(oid: "2.5.29.17") == (names != nil))
    }

    @Test func rolesAndMarkersOfTheRealAppleChain() throws {
        let root = try appleReal("AppleRootCA-G3.der")
        let intermediate = try appleReal("AppleWWDRCA-G6.der")
        let leaf = try appleReal("Prod-ECC-receipt-signing-leaf-2025.der")
        #expect(root.hasCABasicConstraint && intermediate.hasCABasicConstraint)
        #expect(!leaf.hasCABasicConstraint && !leaf.mayActAsCA)
        #expect(leaf.hasExtension(oid: Self.leafMarker))
        #expect(!leaf.hasExtension(oid: Self.intermediateMarker))
        #expect(intermediate.hasExtension(oid: Self.intermediateMarker))
        #expect(!intermediate.hasExtension(oid: Self.leafMarker))
        #expect(leaf.issuer == intermediate.subject)
        #expect(intermediate.issuer == root.subject)
        #expect(try leaf.publicKey().isP256)
        #expect(try root.publicKey().curveName == "secp384r1")
        #expect(try !intermediate.publicKey().isP256)
    }

    @Test func nearMissMarkerOIDsDoNotCount() throws {
        let leaf = try Fixtures.appleLibraryCertificate("certs/test-invalid-oid/testInvalidOIDLeaf.pem")
        #expect(!leaf.hasExtension(oid: Self.leafMarker))
        #expect(leaf.hasExtension(oid: "1.2.840.113635.100.6.11.2"))
        let intermediate = try Fixtures.appleLibraryCertificate("certs/test-invalid-oid/testInvalidOIDIntermediate.pem")
        #expect(!intermediate.hasExtension(oid: Self.intermediateMarker))
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.2"))
        #expect(!leaf.hasExtension(oid: "not an OID"))
    }

    @Test func aVersion1RootMayActAsCAWithoutTheBasicConstraint() throws {
        // x5c[2] of the library's chain B: self-signed, version 1, no extensions.
        let root = try Fixtures.appleLibraryCertificate("certs/test-chain-b/chainB-root.der")
        #expect(!root.hasCABasicConstraint)
        #expect(root.mayActAsCA)
    }

    @Test func byteEqualityComparesTheEncoding() throws {
        let der = try Fixtures.appleLibraryCertificate("certs/test-chain-a/testCA.der")
        let pem = try Fixtures.appleLibraryCertificate("certs/test-chain-a/testCA.pem")
        let older = try Fixtures.appleLibraryCertificate("certs/test-chain-b/chainB-root.der")
        #expect(der.isByteEqual(to: pem))
        #expect(!der.isByteEqual(to: older))
    }

    // MARK: Validity boundaries

    /// The four instants around a validity period `[notBefore, notAfter)` and whether each is in it.
    static func boundaries(of certificate: Certificate) -> [(seconds: Int64, valid: Bool)] {
        [
            (certificate.notBefore - 1, false), (certificate.notBefore, true), (certificate.notAfter - 1, true),
            (certificate.notAfter, false),
        ]
    }

    @Test func validityIncludesNotBeforeAndExcludesNotAfter() throws {
        for certificate in [try appleReal("Prod-ECC-receipt-signing-leaf-2025.der"), TestChains.shortLivedLeaf.leaf] {
            for (seconds, valid) in Self.boundaries(of: certificate) {
                #expect(certificate.isValid(atSeconds: seconds) == valid, "at \(seconds)")
            }
        }
    }

    @Test func chainValidationAgreesWithCertificateValidityAtTheLeafsBoundaries() throws {
        let pki = TestChains.shortLivedLeaf
        let store = try TrustStore(roots: [pki.root])
        for (seconds, valid) in Self.boundaries(of: pki.leaf) {
            let result = store.validate(leaf: pki.leaf, intermediate: pki.intermediate, atSeconds: seconds)
            switch result {
            case .success(let chain):
                #expect(valid, "validated at \(seconds), outside the leaf's validity")
                #expect([chain.leaf, chain.intermediate, chain.root].allSatisfy { $0.isValid(atSeconds: seconds) })
            case .failure(.notValidAtTime(let reason)):
                #expect(!valid, "refused at \(seconds), inside the leaf's validity: \(reason)")
                #expect(reason.hasPrefix("leaf certificate"))
            case .failure(.untrusted(let reason)):
                Issue.record("untrusted at \(seconds): \(reason)")
            }
            #expect(pki.leaf.isValid(atSeconds: seconds) == valid)
        }
    }

    @Test func realChainValidationAgreesWithCertificateValidityAtTheLeafsBoundaries() throws {
        let leaf = try appleReal("Prod-ECC-receipt-signing-leaf-2025.der")
        let intermediate = try appleReal("AppleWWDRCA-G6.der")
        let store = try TrustStore(roots: [try appleReal("AppleRootCA-G3.der")])
        for (seconds, valid) in Self.boundaries(of: leaf) {
            let validated: Bool
            switch store.validate(leaf: leaf, intermediate: intermediate, atSeconds: seconds) {
            case .success: validated = true
            case .failure(.notValidAtTime): validated = false
            case .failure(let other): Issue.record("unexpected failure \(other) at \(seconds)"); continue
            }
            #expect(validated == valid, "at \(seconds)")
            #expect(leaf.isValid(atSeconds: seconds) == valid, "at \(seconds)")
        }
    }
}
