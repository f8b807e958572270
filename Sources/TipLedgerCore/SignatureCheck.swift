// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCrypto

/// Step 6 of docs/verification.md: a raw 64-byte ES256 signature (R‖S) by the chain's leaf key
/// over the signing input, whose digest `UnverifiedJWS` worked out while reading the token.
struct SignatureCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        guard let signer = token.signer else { preconditionFailure("the signature is checked after the chain") }
        guard token.signature.count == ES256Signature.rawByteCount else {
            throw VerificationError(
                .badSignature, "the signature is \(token.signature.count) bytes; ES256 requires 64 (raw R‖S)")
        }
        let digest = token.jws.signingInputDigest
        let valid = token.signature.withUnsafeBytes { signer.key.isValidES256Signature($0, digest: digest) }
        guard valid else {
            throw VerificationError(.badSignature, "the signature does not match the signed content")
        }
    }
}
