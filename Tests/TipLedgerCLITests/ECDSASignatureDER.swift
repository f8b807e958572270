// SPDX-License-Identifier: GPL-3.0-or-later

/// An ES256 signature's raw `R‖S` (RFC 7518 §3.4) re-encoded as the DER `ECDSA-Sig-Value`
/// that OpenSSL's command line expects: `SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279
/// §2.2.3). Built by hand here so the cross-check owes nothing to the project's own code.
enum ECDSASignatureDER {
    /// The DER encoding of a 64-byte raw signature; nil for any other length.
    static func encode(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        // At most 2 × (2 + 33) = 70 bytes, so the short length form always fits.
        return [0x30, UInt8(body.count)] + body
    }

    /// A non-negative big-endian integer as DER: minimal length, and a leading zero byte when
    /// the top bit is set so it does not read as negative.
    private static func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
}
