// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL
internal import Synchronization

/// A public key held by OpenSSL (`EVP_PKEY`), used to verify ECDSA signatures.
///
/// Immutable after creation, so one instance may verify on many threads at once
/// (OpenSSL's "openssl-threads(7)": objects not modified may be shared). Verification contexts
/// are kept for reuse: setting one up costs about a quarter of an ECDSA P-256 verification.
public final class PublicKey: @unchecked Sendable {
    let pkey: OpaquePointer
    /// Idle `EVP_PKEY_CTX`s initialised for verification with this key, owned by this object;
    /// each is used by one thread at a time.
    private let verifiers = Mutex<[VerifyContext]>([])

    /// An `EVP_PKEY_CTX` handed between threads through the pool, used by one at a time.
    private struct VerifyContext: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Wraps `pkey`; this object frees it.
    init(takingOwnershipOf pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        verifiers.withLock { contexts in contexts.forEach { EVP_PKEY_CTX_free($0.pointer) } }
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
    package var subjectPublicKeyInfo: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pkey, &out)
        guard length > 0, let out else { return [] }
        defer { tl_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The curve's OpenSSL name (`prime256v1` for P-256), or nil for a key that is not EC.
    package var curveName: String? {
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
    /// The message is hashed here and the digest verified with `EVP_PKEY_verify` on a reused
    /// context (see "EVP_PKEY_verify(3)": the digest is the signed data). OpenSSL decodes the DER
    /// strictly and checks 0 < r, s < n itself.
    package func isValidSignature(der derSignature: [UInt8], over message: UnsafeRawBufferPointer) -> Bool {
        isValidSignature(der: derSignature, digest: SHA256.hash(message))
    }

    /// Whether `derSignature` is a valid ECDSA signature over the message whose SHA-256 is
    /// `digest` (32 bytes).
    package func isValidSignature(der derSignature: [UInt8], digest: [UInt8]) -> Bool {
        guard digest.count == SHA256.byteCount else { return false }
        guard let context = verifiers.withLock({ $0.popLast() }) ?? newVerifier() else { return false }
        let status = derSignature.withUnsafeBufferPointer { signature in
            digest.withUnsafeBufferPointer { digest in
                EVP_PKEY_verify(
                    context.pointer, signature.baseAddress, signature.count, digest.baseAddress, digest.count)
            }
        }
        // 1 means valid; 0 a wrong signature; a negative value a malformed one. Both leave
        // reasons on the error queue that must not leak into a later, unrelated call.
        if status != 1 { CryptoError.clearQueue() }
        let kept = verifiers.withLock { contexts in
            guard contexts.count < 16 else { return false }
            contexts.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
        return status == 1
    }

    /// A context initialised for verification with this key; the caller owns it.
    private func newVerifier() -> VerifyContext? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            CryptoError.clearQueue()
            return nil
        }
        guard EVP_PKEY_verify_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            CryptoError.clearQueue()
            return nil
        }
        return VerifyContext(pointer: context)
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

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over the message
    /// whose SHA-256 is `digest`.
    public func isValidES256Signature(_ rawSignature: UnsafeRawBufferPointer, digest: [UInt8]) -> Bool {
        guard let der = ES256Signature.der(fromRaw: rawSignature) else { return false }
        return isValidSignature(der: der, digest: digest)
    }

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over `message`.
    public func isValidES256Signature(_ rawSignature: [UInt8], over message: [UInt8]) -> Bool {
        rawSignature.withUnsafeBytes { signature in
            message.withUnsafeBytes { isValidES256Signature(signature, over: $0) }
        }
    }
}
