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

/// SHA-256 partway through a message: the state after its first bytes, from which digests of
/// any number of messages sharing that start are finished without hashing the start again.
///
/// Every token from one signing chain begins with the same ~2.6 KB header, four fifths of what
/// is hashed per token. Immutable after creation, so one instance may serve many threads
/// (`EVP_MD_CTX_copy_ex` only reads its source).
public final class SHA256Prefix: @unchecked Sendable {
    /// The `EVP_MD_CTX` that absorbed the prefix; owned by this object, never changed again.
    private let context: OpaquePointer
    /// How many bytes the prefix had.
    public let byteCount: Int

    /// Hashes `parts`, in order, as the start of later messages.
    public init(_ parts: UnsafeRawBufferPointer...) {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, Digests.sha256.md, nil) == 1 else {
            preconditionFailure("SHA-256 is unavailable in this OpenSSL")
        }
        for part in parts {
            precondition(EVP_DigestUpdate(context, part.baseAddress, part.count) == 1, "SHA-256 update failed")
        }
        self.context = context
        self.byteCount = parts.reduce(0) { $0 + $1.count }
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// The SHA-256 digest of the prefix followed by `rest`.
    public func hash(continuingWith rest: UnsafeRawBufferPointer) -> [UInt8] {
        guard let copy = EVP_MD_CTX_new() else { preconditionFailure("out of memory") }
        defer { EVP_MD_CTX_free(copy) }
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            EVP_MD_CTX_copy_ex(copy, context) == 1 && EVP_DigestUpdate(copy, rest.baseAddress, rest.count) == 1
                && EVP_DigestFinal_ex(copy, out.baseAddress, &length) == 1
        }
        // As in `SHA256.hash`: only allocation failure can get here.
        precondition(status && length == 32, "SHA-256 is unavailable in this OpenSSL")
        return digest
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
