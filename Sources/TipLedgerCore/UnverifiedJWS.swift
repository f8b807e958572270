// SPDX-License-Identifier: GPL-3.0-or-later

internal import TipLedgerCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

/// A compact JWS split and decoded, but not verified: nothing in it may be trusted yet.
///
/// Only `Verifier` turns one into a verified payload. Parsing covers SPEC steps 1–2: the size
/// limit, exactly three base64url parts, and a header and payload that are JSON objects.
public struct UnverifiedJWS: Sendable {
    /// The token exactly as received, without surrounding whitespace: the evidence to keep.
    public let token: String
    /// The decoded protected header.
    public let header: JSONObject
    /// The decoded payload.
    public let payload: JSONObject
    /// The decoded signature bytes (ES256 requires exactly 64).
    public let signature: [UInt8]
    /// Length in bytes of `header "." payload`, the signing input at the start of `token`.
    let signingInputCount: Int
    /// Length in bytes of the header part at the start of `token`.
    let headerByteCount: Int
    /// What the verifier's cache knew of the header when the token was parsed.
    let knownHeader: KnownHeader?

    /// Splits and decodes `text` (surrounding whitespace is ignored, nothing else is repaired).
    public static func parse(_ text: String) throws(VerificationError) -> UnverifiedJWS {
        try parse(text, headers: nil)
    }

    /// `parse(_:)`; `headers`, when given, remembers decoded headers: every token from one
    /// signing chain has the same ~4 KB header (its `x5c`), so decoding it once saves most of
    /// the parsing work.
    static func parse(_ text: String, headers: HeaderCache?) throws(VerificationError) -> UnverifiedJWS {
        let token = trimmed(text)
        let parsed = token.utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(VerificationError) in try parse(bytes: bytes, token: token, headers: headers) }
        }
        if let parsed { return try parsed.get() }
        return try Array(token.utf8).withUnsafeBufferPointer { (bytes) throws(VerificationError) in
            try parse(bytes: bytes, token: token, headers: headers)
        }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, token: String, headers: HeaderCache?)
        throws(VerificationError) -> UnverifiedJWS
    {
        guard bytes.count <= VerificationPolicy.maximumTokenBytes else {
            throw VerificationError(
                .tooLarge, "the token is \(bytes.count) bytes; the limit is \(VerificationPolicy.maximumTokenBytes)")
        }
        guard let firstDot = dot(in: bytes, from: 0), let secondDot = dot(in: bytes, from: firstDot + 1),
            dot(in: bytes, from: secondDot + 1) == nil
        else {
            throw VerificationError(.malformedJWS, "a JWS has exactly three parts separated by '.'")
        }
        let headerSegment = UnsafeBufferPointer(rebasing: bytes[..<firstDot])
        var known = headers?.header(for: headerSegment)
        let header: JSONObject
        if let known {
            header = known.header
        } else {
            header = try decodeObject(headerSegment, part: "header")
            known = headers?.remember(header, for: headerSegment)
        }
        let payload = try decodeObject(
            UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot]), part: "payload")
        guard let signature = Base64.decode(UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...]), alphabet: .url)
        else {
            throw VerificationError(.malformedJWS, "the signature is not base64url")
        }
        return UnverifiedJWS(
            token: token, header: header, payload: payload, signature: signature, signingInputCount: secondDot,
            headerByteCount: firstDot, knownHeader: known)
    }

    /// The index of the first `.` at or after `start`, found with `memchr`.
    private static func dot(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
            let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private static func decodeObject(_ part: UnsafeBufferPointer<UInt8>, part name: String) throws(VerificationError)
        -> JSONObject
    {
        guard let json = Base64.decode(part, alphabet: .url) else {
            throw VerificationError(.malformedJWS, "the \(name) is not base64url")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(json)
        } catch {
            throw VerificationError(.malformedJWS, "the \(name) is not JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw VerificationError(.malformedJWS, "the \(name) is \(value.typeName), not a JSON object")
        }
        return members
    }

    /// Calls `body` with the signing input: the bytes `header "." payload` exactly as received.
    func withSigningInput<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let count = signingInputCount
        if let result = token.utf8.withContiguousStorageIfAvailable({
            body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[..<count])))
        }) {
            return result
        }
        return Array(token.utf8.prefix(count)).withUnsafeBytes(body)
    }

    /// Calls `body` with the header part of the token, exactly as received.
    func withHeaderSegment<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withSigningInput { input in
            input.withMemoryRebound(to: UInt8.self) { body(UnsafeBufferPointer(rebasing: $0[..<headerByteCount])) }
        }
    }

    /// SHA-256 of the signing input, continued from the cached header's state when there is one.
    func signingInputDigest() -> [UInt8] {
        withSigningInput { input in
            guard let tokenPrefix = knownHeader?.tokenPrefix, tokenPrefix.byteCount <= input.count else {
                return SHA256.hash(input)
            }
            return tokenPrefix.hash(continuingWith: UnsafeRawBufferPointer(rebasing: input[tokenPrefix.byteCount...]))
        }
    }

    /// SHA-256 of the token an input line carries (the `signedPayload` of a webhook body), as
    /// received: the key the ledger stores evidence under. Nil when the line is not one.
    public static func tokenDigest(ofLine line: String) -> [UInt8]? {
        tokenDigest(ofLine: line, headers: nil)
    }

    /// `tokenDigest(ofLine:)`, continued from the state `headers` holds for the token's header
    /// when it holds one.
    static func tokenDigest(ofLine line: String, headers: HeaderCache?) -> [UInt8]? {
        var token = trimmed(line)
        if WebhookBody.isBody(token) {
            guard let inner = try? WebhookBody.signedPayload(of: token) else { return nil }
            token = trimmed(inner)
        }
        return token.withUTF8 { bytes in
            guard let firstDot = dot(in: bytes, from: 0),
                let known = headers?.header(for: UnsafeBufferPointer(rebasing: bytes[..<firstDot]))
            else { return SHA256.hash(UnsafeRawBufferPointer(bytes)) }
            let rest = UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)...])
            return known.tokenPrefix.hash(continuingWith: UnsafeRawBufferPointer(rest))
        }
    }

    /// The ASCII whitespace allowed around a token: space, tab, CR, LF.
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }

    /// `text` without the ASCII whitespace (space, tab, CR, LF) around it, as a token is read.
    public static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        var end = utf8.endIndex
        while isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        if first == utf8.startIndex && end == utf8.endIndex { return text }
        return String(text[first..<end])
    }
}
