// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCrypto

/// Step 5 of docs/verification.md: the `x5c` chain, validated by OpenSSL (`X509_verify_cert`)
/// against the trusted roots at the effective time, with Apple's roles and marker OIDs; or
/// Xcode's one self-signed certificate, trusted only as itself. Sets the key that must have
/// signed the payload. Runs behind `CachedChainChecks`, which skips it for a chain validated
/// before.
struct ChainCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        let x5c = token.certificates
        let seconds = token.effectiveDate.wholeSeconds
        if x5c.count == 1 {
            token.signer = try localTestingKey(x5c[0], at: seconds, trustStore: verifier.trustStore)
            return
        }
        let leaf = try Self.certificate(x5c[0], index: 0)
        let intermediate = try Self.certificate(x5c[1], index: 1)
        _ = try Self.certificate(x5c[2], index: 2)
        let chain: ValidatedChain
        switch verifier.trustStore.validate(leaf: leaf, intermediate: intermediate, atSeconds: seconds) {
        case .success(let validated): chain = validated
        case .failure(.notValidAtTime(let reason)):
            throw VerificationError(.certificateNotValidAtSignedDate, "\(reason) at \(token.effectiveDate)")
        case .failure(.untrusted(let reason)):
            throw VerificationError(.untrustedChain, reason)
        }
        let leafKey = try checkRoles(chain)
        token.signer = Signer(key: leafKey, isLocalTesting: false)
        token.validatedChain = ChainCache.Entry(chain: chain, leafKey: leafKey, thirdCertificate: x5c[2])
    }

    /// CA and leaf roles, Apple's marker OIDs and the leaf's curve; returns the leaf's key.
    private func checkRoles(_ chain: ValidatedChain) throws(VerificationError) -> PublicKey {
        guard chain.intermediate.hasCABasicConstraint else {
            throw VerificationError(.untrustedChain, "the intermediate certificate is not a CA")
        }
        guard !chain.leaf.mayActAsCA else {
            throw VerificationError(.untrustedChain, "the leaf certificate is a CA")
        }
        guard chain.leaf.hasExtension(oid: AppleMarkerOID.receiptSigningLeaf) else {
            throw VerificationError(
                .missingAppleOID, "the leaf certificate lacks \(AppleMarkerOID.receiptSigningLeaf)")
        }
        guard chain.intermediate.hasExtension(oid: AppleMarkerOID.wwdrIntermediate) else {
            throw VerificationError(
                .missingAppleOID, "the intermediate certificate lacks \(AppleMarkerOID.wwdrIntermediate)")
        }
        return try p256Key(of: chain.leaf)
    }

    /// Xcode's StoreKit testing signs with one self-signed certificate; it is trusted only when
    /// the user put exactly that certificate in the trust store and accepts the Xcode environment.
    private func localTestingKey(_ text: String, at seconds: Int64, trustStore: TrustStore) throws(VerificationError)
        -> Signer
    {
        let certificate = try Self.certificate(text, index: 0)
        guard trustStore.containsExactly(certificate) else {
            throw VerificationError(
                .untrustedChain, "the single x5c certificate (Xcode StoreKit testing) is not in the trust store")
        }
        guard certificate.isValid(atSeconds: seconds) else {
            throw VerificationError(
                .certificateNotValidAtSignedDate,
                "the Xcode certificate is not valid at \(AppleDate(wholeMilliseconds: seconds * 1000))")
        }
        return Signer(key: try p256Key(of: certificate), isLocalTesting: true)
    }

    /// The certificate `x5c[index]` holds.
    static func certificate(_ text: String, index: Int) throws(VerificationError) -> Certificate {
        guard let der = Base64.decode(text, alphabet: .standard) else {
            throw VerificationError(.invalidCertificate, "x5c[\(index)] is not standard base64")
        }
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw VerificationError(.invalidCertificate, "x5c[\(index)] is not a DER certificate: \(error.reason)")
        }
    }

    private func p256Key(of certificate: Certificate) throws(VerificationError) -> PublicKey {
        guard let key = try? certificate.publicKey(), key.isP256 else {
            throw VerificationError(.untrustedChain, "the signing certificate's key is not EC P-256")
        }
        return key
    }
}
