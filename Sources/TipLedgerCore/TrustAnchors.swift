// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCrypto

/// The roots a verifier trusts by default.
public enum TrustAnchors {
    /// SHA-256 of Apple Root CA - G3's DER encoding, as Apple publishes it.
    package static let appleRootCAG3Fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Apple Root CA - G3, compiled into the binary.
    public static var appleRootCAG3: Certificate {
        do {
            return try Certificate(derEncoded: EmbeddedAppleRoot.der)
        } catch {
            // The bytes are fixed at build time and checked by a test; they cannot fail to parse
            // unless the binary itself is corrupt.
            preconditionFailure("the embedded Apple root does not parse: \(error)")
        }
    }

    /// The DER bytes of the embedded Apple Root CA - G3.
    package static var appleRootCAG3DER: [UInt8] { EmbeddedAppleRoot.der }
}
