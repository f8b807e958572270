// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// Conversions between the two encodings of an ECDSA P-256 signature.
///
/// JWS (RFC 7518, section 3.4) carries ES256 signatures as the raw 64 bytes `R‖S`, each integer
/// big-endian and left-padded to 32 bytes; OpenSSL verifies the ASN.1 DER form
/// `SEQUENCE { INTEGER r, INTEGER s }`.
public enum ES256Signature {
    /// The only length an ES256 signature may have in a JWS.
    public static let rawByteCount = 64

    /// DER encoding of a raw `R‖S` signature, or nil when `raw` is not exactly 64 bytes.
    ///
    /// Values of r or s outside the group order are encoded as given; OpenSSL rejects them when
    /// verifying.
    package static func der(fromRaw raw: UnsafeRawBufferPointer) -> [UInt8]? {
        guard raw.count == rawByteCount, let base = raw.baseAddress else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(bytes, 32, nil) else { return nil }
        guard let s = BN_bin2bn(bytes + 32, 32, nil) else {
            BN_free(r)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s only when it succeeds.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { return nil }
        // i2d_ECDSA_SIG allocated `out` for us; we free it with OPENSSL_free.
        defer { tl_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// DER encoding of a raw `R‖S` signature, or nil when `raw` is not exactly 64 bytes.
    package static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        raw.withUnsafeBytes { der(fromRaw: $0) }
    }

    /// The raw 64-byte `R‖S` form of a DER signature, or nil when `der` is not a strict DER
    /// ECDSA signature whose integers fit in 32 bytes.
    package static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                CryptoError.clearQueue()
                return nil
            }
            defer { ECDSA_SIG_free(signature) }
            // Trailing bytes after the SEQUENCE make the encoding ambiguous: refuse them.
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else { return nil }
            // ECDSA_SIG_get0_r/s return pointers still owned by `signature`.
            guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
                return nil
            }
            var out = [UInt8](repeating: 0, count: rawByteCount)
            let ok = out.withUnsafeMutableBufferPointer { out -> Bool in
                BN_bn2binpad(r, out.baseAddress, 32) == 32
                    && BN_bn2binpad(s, out.baseAddress! + 32, 32) == 32
            }
            return ok ? out : nil
        }
    }
}
