// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    /// The digest's length in bytes.
    public static let byteCount = 32

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, Digests.sha256.md, nil)
        }
        // EVP_Digest only fails on allocation failure or a missing provider; neither can be handled
        // meaningfully by a caller, and returning a wrong digest would be worse.
        precondition(status == 1 && length == 32, "SHA-256 is unavailable in this OpenSSL")
        return digest
    }

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let array = Array(bytes)
        return array.withUnsafeBytes { hash($0) }
    }

    /// The digest as lowercase hexadecimal.
    public static func hexDigest(_ bytes: some Sequence<UInt8>) -> String {
        hex(hash(bytes))
    }
}

/// Lowercase hexadecimal of `bytes`.
public func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Message digests fetched once from the default provider.
///
/// In OpenSSL 3 `EVP_sha256()` is resolved against the provider on every use; an explicitly
/// fetched `EVP_MD` skips that lookup. See OpenSSL's "crypto(7)", section "Explicit fetching".
final class Digests: @unchecked Sendable {
    static let sha256 = Digests(name: "SHA256")

    /// The fetched digest; owned by this object for the life of the process.
    let md: OpaquePointer

    private init(name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            preconditionFailure("OpenSSL has no \(name) digest")
        }
        self.md = md
    }
}
