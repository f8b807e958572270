// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// A public key held by OpenSSL (`EVP_PKEY`), used to verify ECDSA signatures.
///
/// Immutable after creation, so one instance may verify on many threads at once: each call makes
/// its own `EVP_MD_CTX` (OpenSSL's "openssl-threads(7)": objects not modified may be shared).
public final class PublicKey: @unchecked Sendable {
    let pkey: OpaquePointer

    /// Wraps `pkey`; this object frees it.
    init(takingOwnershipOf pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Parses a DER `SubjectPublicKeyInfo`.
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("parse public key") }
        self.init(takingOwnershipOf: parsed)
    }

    /// The DER `SubjectPublicKeyInfo` of this key.
    public var subjectPublicKeyInfo: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pkey, &out)
        guard length > 0, let out else { return [] }
        defer { tl_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The curve's OpenSSL name (`prime256v1` for P-256), or nil for a key that is not EC.
    public var curveName: String? {
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 else {
            CryptoError.clearQueue()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether this is an EC key on P-256, the only curve ES256 allows.
    public var isP256: Bool { curveName == "prime256v1" }

    /// Whether `derSignature` is a valid ECDSA signature with SHA-256 over `message`.
    ///
    /// OpenSSL decodes the DER strictly and checks 0 < r, s < n itself.
    public func isValidSignature(der derSignature: [UInt8], over message: UnsafeRawBufferPointer) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, Digests.sha256.md, nil, pkey) == 1 else {
            CryptoError.clearQueue()
            return false
        }
        let status = derSignature.withUnsafeBufferPointer { signature in
            EVP_DigestVerify(
                context, signature.baseAddress, signature.count,
                message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        }
        // 1 means valid; 0 a wrong signature; a negative value a malformed one. Both leave
        // reasons on the error queue that must not leak into a later, unrelated call.
        if status != 1 { CryptoError.clearQueue() }
        return status == 1
    }

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over `message`.
    ///
    /// Any length other than 64 is invalid, as RFC 7518 section 3.4 requires.
    public func isValidES256Signature(
        _ rawSignature: UnsafeRawBufferPointer, over message: UnsafeRawBufferPointer
    ) -> Bool {
        guard let der = ES256Signature.der(fromRaw: rawSignature) else { return false }
        return isValidSignature(der: der, over: message)
    }

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over `message`.
    public func isValidES256Signature(_ rawSignature: [UInt8], over message: [UInt8]) -> Bool {
        rawSignature.withUnsafeBytes { signature in
            message.withUnsafeBytes { isValidES256Signature(signature, over: $0) }
        }
    }
}
