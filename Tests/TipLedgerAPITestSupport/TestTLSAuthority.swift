// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
public import TipLedgerCrypto
public import TipLedgerHTTP

/// A certificate authority minted for one test run with the project's test PKI, and the TLS
/// certificate it issued to a server at `localhost`.
///
/// Valid from an hour ago for a day of real time, since the TLS client checks validity against
/// the system clock. The server presents its certificate and the intermediate; a client trusts
/// the root alone.
public struct TestTLSAuthority: Sendable {
    /// The test PKI whose intermediate issued the server's certificate.
    public let pki: TestPKI
    /// What the server presents.
    public let serverIdentity: TLSIdentity

    /// The host name the server's certificate is valid for.
    public static let hostName = "localhost"

    public init() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let pki = try TestPKI.mint(TestPKI.Options(validFrom: now - 3600, validUntil: now + 86_400))
        let serverKey = try PrivateKey.generate(curve: .p256)
        var template = CertificateTemplate(
            subject: [("CN", Self.hostName), ("O", "tipledger TEST")], serialNumber: 4, notBefore: now - 3600,
            notAfter: now + 86_400, isCA: false, keyUsage: "critical,digitalSignature")
        template.subjectAlternativeNames = "DNS:\(Self.hostName)"
        let server = try Certificate.mint(
            template, subjectKey: serverKey, issuer: (pki.intermediate, pki.intermediateKey))
        self.pki = pki
        self.serverIdentity = TLSIdentity(
            certificateChainPEM: server.pemEncoded + pki.intermediate.pemEncoded, privateKeyPEM: serverKey.pemEncoded)
    }

    /// The root certificate, PEM: what a client trusts.
    public var certificateAuthorityPEM: String { pki.root.pemEncoded }
}
