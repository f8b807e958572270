// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// An EC private key held by OpenSSL, for signing test payloads and minting test certificates.
public final class PrivateKey: @unchecked Sendable {
    /// The curves a key can be generated on.
    public enum Curve: Sendable {
        /// NIST P-256 (`prime256v1`), the ES256 curve.
        case p256
        /// NIST P-384 (`secp384r1`), used by Apple's root and intermediate.
        case p384

        var nid: Int32 {
            switch self {
            case .p256: NID_X9_62_prime256v1
            case .p384: NID_secp384r1
            }
        }
    }

    let pkey: OpaquePointer

    /// Wraps `pkey`; this object frees it.
    init(takingOwnershipOf pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// A fresh random key on `curve`.
    public static func generate(curve: Curve = .p256) throws(CryptoError) -> PrivateKey {
        // EVP_EC_gen is a variadic macro, so this is the non-variadic keygen path.
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else {
            throw CryptoError.openSSL("create key context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, curve.nid) == 1,
            EVP_PKEY_keygen(context, &key) == 1, let key
        else {
            throw CryptoError.openSSL("generate EC key")
        }
        return PrivateKey(takingOwnershipOf: key)
    }

    /// Reads a PEM private key (PKCS#8 `PRIVATE KEY` or SEC1 `EC PRIVATE KEY`, unencrypted).
    public convenience init(pemEncoded pem: String) throws(CryptoError) {
        let key = withMemoryBIO(reading: Array(pem.utf8)) { bio in
            PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw CryptoError.openSSL("read PEM private key") }
        self.init(takingOwnershipOf: key)
    }

    /// The key as unencrypted PKCS#8 PEM.
    public var pemEncoded: String {
        let text = writingMemoryBIO { bio in
            PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1
        }
        return text.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The matching public key.
    public var publicKey: PublicKey {
        get throws(CryptoError) {
            var out: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_PUBKEY(pkey, &out)
            guard length > 0, let out else { throw CryptoError.openSSL("export public key") }
            defer { tl_openssl_free(out) }
            return try PublicKey(
                subjectPublicKeyInfo: Array(UnsafeBufferPointer(start: out, count: Int(length))))
        }
    }

    /// An ES256 signature over `message`: ECDSA P-256 with SHA-256, as raw 64-byte `R‖S`.
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try signDER(message)
        guard let raw = ES256Signature.raw(fromDER: der) else {
            throw CryptoError(operation: "sign", reason: "signature does not fit ES256")
        }
        return raw
    }

    /// An ECDSA signature with SHA-256 over `message`, DER-encoded.
    package func signDER(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("sign") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, Digests.sha256.md, nil, pkey) == 1 else {
            throw CryptoError.openSSL("sign")
        }
        var length = 0
        let status: Int32 = message.withUnsafeBufferPointer { message in
            guard EVP_DigestSign(context, nil, &length, message.baseAddress, message.count) == 1 else {
                return 0
            }
            return 1
        }
        guard status == 1 else { throw CryptoError.openSSL("sign") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = signature.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { message in
                EVP_DigestSign(context, out.baseAddress, &length, message.baseAddress, message.count)
            }
        }
        guard signed == 1 else { throw CryptoError.openSSL("sign") }
        return Array(signature.prefix(length))
    }
}

/// Runs `body` with a read-only memory BIO over `bytes`.
func withMemoryBIO<Result>(reading bytes: [UInt8], _ body: (OpaquePointer) -> Result?) -> Result? {
    bytes.withUnsafeBytes { buffer -> Result? in
        // BIO_new_mem_buf does not copy: the BIO must not outlive `buffer`.
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
        defer { BIO_free(bio) }
        return body(bio)
    }
}

/// Runs `body` with a fresh writable memory BIO and returns what it wrote, or nil on failure.
func writingMemoryBIO(_ body: (OpaquePointer) -> Bool) -> [UInt8]? {
    guard let bio = BIO_new(BIO_s_mem()) else { return nil }
    defer { BIO_free(bio) }
    guard body(bio) else {
        CryptoError.clearQueue()
        return nil
    }
    var data: UnsafeMutablePointer<CChar>? = nil
    let length = tl_bio_get_mem_data(bio, &data)
    guard length >= 0, let data else { return [] }
    // The bytes still belong to the BIO, so copy them before it is freed.
    return data.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
    }
}
