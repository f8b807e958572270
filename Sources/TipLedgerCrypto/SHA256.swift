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
    package static func hexDigest(_ bytes: some Sequence<UInt8>) -> String {
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
        let status = EVP_MD_CTX_copy_ex(copy, context) == 1 && EVP_DigestUpdate(copy, rest.baseAddress, rest.count) == 1
        precondition(status, "SHA-256 is unavailable in this OpenSSL")
        return Self.finish(copy)
    }

    /// The SHA-256 digests of the prefix followed by `middle`, and of the prefix followed by
    /// `middle` and `end`, from one pass over the bytes: a JWS's signing input and the whole
    /// token, which starts with it.
    public func hashes(continuingWith middle: UnsafeRawBufferPointer, then end: UnsafeRawBufferPointer)
        -> (throughMiddle: [UInt8], throughEnd: [UInt8])
    {
        guard let running = EVP_MD_CTX_new(), let split = EVP_MD_CTX_new() else { preconditionFailure("out of memory") }
        defer {
            EVP_MD_CTX_free(running)
            EVP_MD_CTX_free(split)
        }
        // Finishing a digest ends its context, so the state after `middle` is copied first and
        // the copy finished, while the original goes on with `end`.
        let status =
            EVP_MD_CTX_copy_ex(running, context) == 1
            && EVP_DigestUpdate(running, middle.baseAddress, middle.count) == 1
            && EVP_MD_CTX_copy_ex(split, running) == 1 && EVP_DigestUpdate(running, end.baseAddress, end.count) == 1
        precondition(status, "SHA-256 is unavailable in this OpenSSL")
        return (Self.finish(split), Self.finish(running))
    }

    /// The digest `context` holds, which it can then give no more.
    private static func finish(_ context: OpaquePointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        // As in `SHA256.hash`: only allocation failure can get here.
        precondition(status == 1 && length == 32, "SHA-256 is unavailable in this OpenSSL")
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
