// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// Xcode's StoreKit testing: a single self-signed certificate, trusted only when it is in the
/// trust store and the Xcode environment is accepted (docs/verification.md, "Xcode").
@Suite struct LocalTestingTests {
    /// A self-signed stand-in for the "StoreKit Testing in Xcode" certificate, valid around the
    /// reference time; minted once.
    static let xcode: (certificate: Certificate, key: PrivateKey) = mintSelfSigned(curve: .p256, serial: 1)

    /// Shaped as Xcode mints "StoreKit Testing in Xcode": a CA constraint with `pathlen:0`, but
    /// a key usage of `digitalSignature` only.
    static let xcodeShaped: (certificate: Certificate, key: PrivateKey) = mintSelfSigned(
        curve: .p256, serial: 1, isCA: true, pathLength: 0)

    static func mintSelfSigned(
        curve: PrivateKey.Curve, serial: UInt64, key: PrivateKey? = nil, isCA: Bool = false, pathLength: Int? = nil,
        keyUsage: String = "critical,digitalSignature"
    ) -> (certificate: Certificate, key: PrivateKey) {
        do {
            let key = try key ?? PrivateKey.generate(curve: curve)
            let certificate = try Certificate.mint(
                CertificateTemplate(
                    subject: [("CN", "StoreKit Testing TEST")], serialNumber: serial,
                    notBefore: TestChains.referenceSeconds - 86_400, notAfter: TestChains.referenceSeconds + 86_400,
                    isCA: isCA, pathLength: pathLength, keyUsage: keyUsage),
                subjectKey: key, issuer: nil)
            return (certificate, key)
        } catch {
            preconditionFailure("cannot mint the Xcode test certificate: \(error)")
        }
    }

    /// The Xcode stand-ins: shaped as Xcode's own, and not a CA at all.
    enum Shape: String, CaseIterable, Sendable {
        case asXcodeMintsIt
        case notACA

        var minted: (certificate: Certificate, key: PrivateKey) {
            switch self {
            case .asXcodeMintsIt: LocalTestingTests.xcodeShaped
            case .notACA: LocalTestingTests.xcode
            }
        }
    }

    private func signed(
        _ payload: String, certificate: Certificate = xcode.certificate, key: PrivateKey = xcode.key
    ) throws -> String {
        try TestJWS.sign(
            header: TestJWS.header(x5c: TestJWS.x5c([certificate]), extra: #""kid":"Apple_Xcode_Key","typ":"JWT""#),
            payload: payload, key: key)
    }

    private func verifier(
        trusting roots: [Certificate] = [xcode.certificate], environments: Set<AppStoreEnvironment> = [.xcode]
    ) throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(roots: roots),
            policy: VerificationPolicy(
                bundleIds: ["com.example.tips"], environments: environments, appAppleId: 1_234_567_890),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
    }

    private let xcodeTransaction = TestPayloads.transaction(["environment": "\"Xcode\""])

    @Test func trustedXcodeCertificateVerifiesXcodePayloads() throws {
        let verified = try verifier().verifyTransaction(try signed(xcodeTransaction))
        #expect(verified.environment == .xcode)
        let app = try verifier().verifyPayload(
            try signed(TestPayloads.appTransaction(["receiptType": "\"Xcode\""])), as: nil)
        #expect(app.kind == .appTransaction && app.environment == .xcode)
    }

    /// Accepted under either name, and verified as Xcode: one environment (docs/verification.md).
    @Test func localTestingIsTreatedLikeXcode() throws {
        let token = try signed(TestPayloads.transaction(["environment": "\"LocalTesting\""]))
        #expect(try verifier().verifyTransaction(token).environment == .xcode)
        #expect(try verifier(environments: [.localTesting]).verifyTransaction(token).environment == .xcode)
        #expect(try verifier(environments: [.localTesting]).rejection(of: try signed(xcodeTransaction)) == nil)
    }

    @Test func anUntrustedXcodeCertificateIsRejected() throws {
        #expect(
            try verifier(trusting: [TestChains.standard.root]).rejection(of: try signed(xcodeTransaction))
                == .untrustedChain)
        // Same subject and validity, another key: not byte-equal, so not trusted.
        let lookalike = Self.mintSelfSigned(curve: .p256, serial: 1)
        let token = try signed(xcodeTransaction, certificate: lookalike.certificate, key: lookalike.key)
        #expect(try verifier().rejection(of: token) == .untrustedChain)
    }

    @Test func aSingleCertificateIsRefusedUnlessXcodeIsAccepted() throws {
        let sandbox = try verifier(environments: [.sandbox, .production])
        #expect(sandbox.rejection(of: try signed(xcodeTransaction)) == .invalidChainLength)
    }

    @Test func anXcodeCertificateCannotSignForAnotherEnvironment() throws {
        let token = try signed(TestPayloads.transaction(["environment": "\"Sandbox\""]))
        #expect(try verifier(environments: [.xcode, .sandbox]).rejection(of: token) == .wrongEnvironment)
        #expect(try verifier(environments: [.xcode]).rejection(of: token) == .wrongEnvironment)
    }

    @Test func theXcodeSignatureIsChecked() throws {
        let token = try signed(xcodeTransaction)
        #expect(
            try verifier().rejection(
                of: TestJWS.replacingPayload(
                    of: token, with: TestPayloads.transaction(["environment": "\"Xcode\"", "price": "1"])))
                == .badSignature)
        let otherKey = try signed(xcodeTransaction, key: try PrivateKey.generate())
        #expect(try verifier().rejection(of: otherKey) == .badSignature)
    }

    @Test func theXcodeCertificateMustBeValidAtTheEffectiveTime() throws {
        let late = TestPayloads.transaction([
            "environment": "\"Xcode\"", "signedDate": String(TestChains.referenceMilliseconds + 2 * 86_400_000),
        ])
        #expect(try verifier().rejection(of: try signed(late)) == .certificateNotValidAtSignedDate)
    }

    @Test func anXcodeCertificateWithAP384KeyIsRejected() throws {
        let p384 = Self.mintSelfSigned(curve: .p384, serial: 2)
        let token = try signed(xcodeTransaction, certificate: p384.certificate, key: Self.xcode.key)
        #expect(try verifier(trusting: [p384.certificate]).rejection(of: token) == .untrustedChain)
    }

    @Test func aThreeCertificateChainStillWorksWhenXcodeIsAccepted() throws {
        let verifier = try verifier(
            trusting: [Self.xcode.certificate, TestChains.standard.root], environments: [.xcode, .sandbox])
        #expect(verifier.rejection(of: try TestJWS.sign(TestPayloads.transaction())) == nil)
        // Only the single Xcode certificate is tied to Xcode; a trusted three-certificate chain
        // signs for any accepted environment, Xcode included.
        #expect(verifier.rejection(of: try TestJWS.sign(xcodeTransaction)) == nil)
    }

    /// Xcode's own certificate may not issue certificates (its key usage lacks `keyCertSign`),
    /// and neither may the stand-ins, so what they show below holds for it.
    @Test func xcodesOwnCertificateCannotIssueCertificates() throws {
        let real = try TestJWS.xcodeCertificate(of: try Fixtures.text("real/xcode-signed-transaction.jws"))
        #expect(real.isSelfSigned && real.subject.contains("StoreKit Testing in Xcode"))
        #expect(!real.mayActAsCA)
        for shape in Shape.allCases {
            #expect(!shape.minted.certificate.mayActAsCA, "\(shape)")
        }
    }

    /// Whoever holds the key of an Xcode certificate a server trusts mints an intermediate and a
    /// leaf with Apple's marker OIDs beneath it: the chain must not verify, for Xcode or for a
    /// real environment, although the same key signs Xcode payloads and, behind a certificate
    /// that may issue, the very same chain.
    @Test(arguments: Shape.allCases, ["Production", "Sandbox", "Xcode"])
    func anXcodeCertificateCannotAnchorAThreeCertificateChain(_ shape: Shape, environment: String) throws {
        let anchor = shape.minted
        let pki = try TestPKI.mint(TestChains.options(), under: anchor.certificate, rootKey: anchor.key)
        let verifier = try verifier(
            trusting: [anchor.certificate, TestChains.standard.root], environments: [.xcode, .sandbox, .production])
        #expect(
            verifier.rejection(of: try signed(xcodeTransaction, certificate: anchor.certificate, key: anchor.key))
                == nil)

        let token = try TestJWS.sign(TestPayloads.transaction(["environment": "\"\(environment)\""]), pki: pki)
        #expect(verifier.rejection(of: token) == .untrustedChain)

        let issuing = Self.mintSelfSigned(
            curve: .p256, serial: 1, key: anchor.key, isCA: true, keyUsage: "critical,keyCertSign")
        let control = try self.verifier(trusting: [issuing.certificate], environments: [.xcode, .sandbox, .production])
        #expect(control.rejection(of: token) == nil)
    }

    /// Nor can the Xcode certificate stand first in a three-certificate `x5c`, as if it were an
    /// App Store leaf.
    @Test(arguments: Shape.allCases, ["Production", "Sandbox"])
    func anXcodeCertificateCannotStandAsTheLeafOfAChain(_ shape: Shape, environment: String) throws {
        let anchor = shape.minted
        let verifier = try verifier(
            trusting: [anchor.certificate, TestChains.standard.root], environments: [.xcode, .sandbox, .production])
        let x5c = TestJWS.x5c([anchor.certificate, TestChains.standard.intermediate, TestChains.standard.root])
        let token = try TestJWS.sign(
            header: TestJWS.header(x5c: x5c),
            payload: TestPayloads.transaction(["environment": "\"\(environment)\""]), key: anchor.key)
        #expect(verifier.rejection(of: token) == .untrustedChain)
    }
}
