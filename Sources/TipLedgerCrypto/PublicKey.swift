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
    /// Idle verification contexts for this key, owned by this object; each is used by one
    /// thread at a time.
    private let verifiers = Mutex<[VerifyContext]>([])

    /// What one verification needs, kept between verifications: an `EVP_PKEY_CTX` initialised
    /// for verification with this key, and an `ECDSA_SIG` with room for the DER form of a raw
    /// ES256 signature, so a signature is converted without allocating. Handed between threads
    /// through the pool, used by one at a time.
    private struct VerifyContext: @unchecked Sendable {
        let pointer: OpaquePointer
        /// Owns `r` and `s` (`ECDSA_SIG_set0` took them); the pointers stay valid as long as
        /// it lives, and each conversion sets their values in place.
        let signature: OpaquePointer
        let r: OpaquePointer
        let s: OpaquePointer
        /// `derCapacity` bytes for the DER form, owned by this context.
        let der: UnsafeMutablePointer<UInt8>

        /// SEQUENCE { INTEGER r, INTEGER s } with 32-byte values: at most 2 + 2 × (2 + 33).
        static let derCapacity = 72

        func free() {
            EVP_PKEY_CTX_free(pointer)
            ECDSA_SIG_free(signature)
            der.deallocate()
        }
    }

    /// Wraps `pkey`; this object frees it.
    init(takingOwnershipOf pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        verifiers.withLock { contexts in contexts.forEach { $0.free() } }
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
        derSignature.withUnsafeBufferPointer { signature in
            withVerifier { context in verify(signature, digest: digest, with: context) }
        }
    }

    /// `EVP_PKEY_verify` of the DER `signature` over `digest` on `context`.
    private func verify(_ signature: UnsafeBufferPointer<UInt8>, digest: [UInt8], with context: VerifyContext) -> Bool {
        guard digest.count == SHA256.byteCount else { return false }
        let status = digest.withUnsafeBufferPointer { digest in
            EVP_PKEY_verify(context.pointer, signature.baseAddress, signature.count, digest.baseAddress, digest.count)
        }
        // 1 means valid; 0 a wrong signature; a negative value a malformed one. Both leave
        // reasons on the error queue that must not leak into a later, unrelated call.
        if status != 1 { CryptoError.clearQueue() }
        return status == 1
    }

    /// `body`'s answer with a verification context of this key, taken from the pool (or made)
    /// and put back after; false when none can be made.
    private func withVerifier(_ body: (VerifyContext) -> Bool) -> Bool {
        guard let context = verifiers.withLock({ $0.popLast() }) ?? newVerifier() else { return false }
        let valid = body(context)
        let kept = verifiers.withLock { contexts in
            guard contexts.count < 16 else { return false }
            contexts.append(context)
            return true
        }
        if !kept { context.free() }
        return valid
    }

    /// A context initialised for verification with this key; the caller owns it.
    private func newVerifier() -> VerifyContext? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            CryptoError.clearQueue()
            return nil
        }
        guard EVP_PKEY_verify_init(context) == 1, let signature = ECDSA_SIG_new() else {
            EVP_PKEY_CTX_free(context)
            CryptoError.clearQueue()
            return nil
        }
        guard let r = BN_new(), let s = BN_new() else {
            EVP_PKEY_CTX_free(context)
            ECDSA_SIG_free(signature)
            return nil
        }
        // ECDSA_SIG_set0 takes r and s only when it succeeds; then the signature frees them.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            EVP_PKEY_CTX_free(context)
            ECDSA_SIG_free(signature)
            return nil
        }
        return VerifyContext(
            pointer: context, signature: signature, r: r, s: s,
            der: .allocate(capacity: VerifyContext.derCapacity))
    }

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over `message`.
    ///
    /// Any length other than 64 is invalid, as RFC 7518 section 3.4 requires.
    public func isValidES256Signature(
        _ rawSignature: UnsafeRawBufferPointer, over message: UnsafeRawBufferPointer
    ) -> Bool {
        isValidES256Signature(rawSignature, digest: SHA256.hash(message))
    }

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over the message
    /// whose SHA-256 is `digest`.
    ///
    /// The raw form is converted to the DER form OpenSSL verifies in the context's own
    /// `ECDSA_SIG` and buffer, which are reused: nothing is allocated per signature.
    public func isValidES256Signature(_ rawSignature: UnsafeRawBufferPointer, digest: [UInt8]) -> Bool {
        guard rawSignature.count == ES256Signature.rawByteCount, let raw = rawSignature.baseAddress else {
            return false
        }
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        return withVerifier { context in
            // BN_bin2bn into an existing BIGNUM sets its value in place.
            guard BN_bin2bn(bytes, 32, context.r) != nil, BN_bin2bn(bytes + 32, 32, context.s) != nil else {
                return false
            }
            // With a buffer given, i2d_ECDSA_SIG writes into it and allocates nothing.
            var cursor: UnsafeMutablePointer<UInt8>? = context.der
            let length = i2d_ECDSA_SIG(context.signature, &cursor)
            guard length > 0, length <= VerifyContext.derCapacity else { return false }
            return verify(UnsafeBufferPointer(start: context.der, count: Int(length)), digest: digest, with: context)
        }
    }

    /// Whether `rawSignature` is a valid ES256 signature (raw 64-byte `R‖S`) over `message`.
    public func isValidES256Signature(_ rawSignature: [UInt8], over message: [UInt8]) -> Bool {
        rawSignature.withUnsafeBytes { signature in
            message.withUnsafeBytes { isValidES256Signature(signature, over: $0) }
        }
    }
}
