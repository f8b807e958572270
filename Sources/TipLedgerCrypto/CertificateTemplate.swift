// SPDX-License-Identifier: GPL-3.0-or-later

/// What a minted certificate should say: the input to `Certificate.mint`.
///
/// Used for test PKIs (`tipledger testkit` and the project's own tests), never for real trust.
package struct CertificateTemplate: Sendable {
    /// Distinguished name attributes in order, e.g. `[("CN", "TEST Root"), ("O", "tipledger TEST")]`.
    package var subject: [(String, String)]
    /// The serial number; unique per issuer.
    package var serialNumber: UInt64
    /// Start of validity, seconds since 1970.
    package var notBefore: Int64
    /// End of validity, seconds since 1970.
    package var notAfter: Int64
    /// Whether to write `basicConstraints` (with `CA:TRUE` or `CA:FALSE` per `isCA`).
    package var writesBasicConstraints: Bool = true
    /// Whether the certificate may issue others.
    package var isCA: Bool
    /// `pathlen` of the CA constraint, when set.
    package var pathLength: Int?
    /// A `keyUsage` value in OpenSSL configuration syntax, e.g. `critical,digitalSignature`.
    package var keyUsage: String?
    /// Extension OIDs to add with an ASN.1 NULL value, as Apple's marker extensions are.
    package var markerOIDs: [String]
    /// Whether to write subject and authority key identifiers.
    package var writesKeyIdentifiers: Bool = true
    /// A `subjectAltName` value in OpenSSL configuration syntax, e.g. `DNS:localhost`: the names
    /// a TLS server certificate is valid for (a client checks the host it asked for against them).
    package var subjectAlternativeNames: String?
    /// An `extendedKeyUsage` value in OpenSSL configuration syntax, e.g. `OCSPSigning`: what the
    /// key may be used for beyond `keyUsage` (a delegated OCSP responder's certificate says so).
    package var extendedKeyUsage: String?
    /// The OCSP responder's URL for the certificate's Authority Information Access, e.g.
    /// `http://127.0.0.1:8888/`: where a verifier checking online asks whether it is revoked.
    package var ocspURL: String?

    package init(
        subject: [(String, String)], serialNumber: UInt64, notBefore: Int64, notAfter: Int64,
        isCA: Bool, pathLength: Int? = nil, keyUsage: String? = nil, markerOIDs: [String] = []
    ) {
        self.subject = subject
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCA = isCA
        self.pathLength = pathLength
        self.keyUsage = keyUsage
        self.markerOIDs = markerOIDs
    }
}
