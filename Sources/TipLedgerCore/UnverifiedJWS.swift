// SPDX-License-Identifier: GPL-3.0-or-later

internal import TipLedgerCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

/// One signed item as read: framed, its header decoded, hashed, and not verified. Nothing in it
/// may be trusted yet; only `Verifier` turns it into a verified payload.
///
/// Everything later steps need from the item's bytes is worked out here, once (see
/// docs/verification.md, "The checks, in order"): the token without the whitespace around it,
/// unwrapped from a webhook body; where its three parts are; its header, decoded or found among
/// the headers seen before; and the SHA-256 of its signing input and of the whole token, from one
/// pass over the bytes. `verify` looks repeats up by `digest`, the verifier checks the rest, and
/// the ledger keys the token's evidence on the same digest.
public struct UnverifiedJWS: Sendable {
    /// The token exactly as received, without surrounding whitespace: the evidence to keep.
    public let token: String
    /// Whether the token came as a notification's webhook body (`{"signedPayload":"<JWS>"}`),
    /// which carries a notification and nothing else.
    public let isWebhookBody: Bool
    /// SHA-256 of `token`: the key the ledger stores and finds its evidence under.
    public let digest: [UInt8]
    /// SHA-256 of the signing input (`header "." payload`), which the signature signs.
    let signingInputDigest: [UInt8]
    /// Length in bytes of the header part at the start of `token`.
    let headerByteCount: Int
    /// Length in bytes of `header "." payload`, the signing input at the start of `token`.
    let signingInputCount: Int
    /// The decoded header, with what the verifier learnt of it before (`KnownHeader.chain`).
    let knownHeader: KnownHeader
    /// The header cache `knownHeader` came from: the chain it names was validated by the
    /// verifier owning that cache, and means nothing to another.
    let headerCache: HeaderCache?

    /// The decoded protected header.
    public var header: JSONObject { knownHeader.header }

    /// The decoded payload, decoded again on each use (the verifier's first check decodes it
    /// once and keeps it).
    public var payload: JSONObject {
        get throws(VerificationError) { try body().payload }
    }

    /// The decoded signature bytes (ES256 requires exactly 64), decoded again on each use.
    public var signature: [UInt8] {
        get throws(VerificationError) { try body().signature }
    }

    /// The token as the ledger stores it.
    var evidence: TokenEvidence {
        TokenEvidence(
            token: token, digest: digest, headerByteCount: headerByteCount, headerDigest: knownHeader.digest)
    }

    /// Splits and decodes the bare token `text` (surrounding whitespace is ignored, nothing
    /// else is repaired).
    public static func parse(_ text: String) throws(VerificationError) -> UnverifiedJWS {
        try parse(token: text, headers: nil)
    }

    /// An input line: a bare token, or a webhook body around one. `headers`, when given, holds
    /// the headers seen before (see `HeaderCache`).
    static func parse(line: String, headers: HeaderCache?) throws(VerificationError) -> UnverifiedJWS {
        try parse(token: line, headers: headers, unwrappingBody: true)
    }

    /// A bare token, or with `unwrappingBody` a webhook body around one; `headers` as in
    /// `parse(line:headers:)`. `isWebhookBody` says that `text` came out of one.
    static func parse(
        token text: String, headers: HeaderCache?, unwrappingBody: Bool = false, isWebhookBody: Bool = false
    ) throws(VerificationError) -> UnverifiedJWS {
        var utf8 = text
        // `withUTF8` rethrows untyped errors: the rejection is carried out as a result.
        return try utf8.withUTF8 { bytes in
            Result { () throws(VerificationError) in
                let range = trimmedRange(bytes)
                // The text itself when nothing was trimmed (a line as read): no copy.
                let trimmed = range.count == bytes.count ? text : String(decoding: bytes[range], as: UTF8.self)
                if unwrappingBody && bytes[range].first == UInt8(ascii: "{") {
                    return try parse(
                        token: try WebhookBody.signedPayload(of: trimmed), headers: headers, isWebhookBody: true)
                }
                return try frame(
                    UnsafeBufferPointer(rebasing: bytes[range]), token: trimmed, headers: headers,
                    isWebhookBody: isWebhookBody)
            }
        }.get()
    }

    /// Steps 1–2 of docs/verification.md up to the header: the size limit, exactly three parts,
    /// and a header that is a JSON object; then both digests.
    private static func frame(
        _ bytes: UnsafeBufferPointer<UInt8>, token: String, headers: HeaderCache?, isWebhookBody: Bool
    ) throws(VerificationError) -> UnverifiedJWS {
        guard bytes.count <= VerificationPolicy.maximumTokenBytes else {
            throw VerificationError(
                .tooLarge, "the token is \(bytes.count) bytes; the limit is \(VerificationPolicy.maximumTokenBytes)")
        }
        guard let firstDot = dot(in: bytes, from: 0), let secondDot = dot(in: bytes, from: firstDot + 1),
            dot(in: bytes, from: secondDot + 1) == nil
        else {
            throw VerificationError(.malformedJWS, "a JWS has exactly three parts separated by '.'")
        }
        let segment = UnsafeBufferPointer(rebasing: bytes[..<firstDot])
        let known: KnownHeader
        if let found = headers?.header(for: segment) {
            known = found
        } else {
            let header = try decodeObject(segment, part: "header")
            known = headers?.remember(header, for: segment) ?? KnownHeader(header, segment: segment)
        }
        // The known header's state covers `header "."`; the payload completes the signing
        // input, and `"." signature` the token.
        let (signingInputDigest, digest) = known.tokenPrefix.hashes(
            continuingWith: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])),
            then: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[secondDot...])))
        return UnverifiedJWS(
            token: token, isWebhookBody: isWebhookBody, digest: digest, signingInputDigest: signingInputDigest,
            headerByteCount: firstDot, signingInputCount: secondDot, knownHeader: known, headerCache: headers)
    }

    /// The rest of steps 1–2: a payload that is a JSON object, and a base64url signature.
    func body() throws(VerificationError) -> (payload: JSONObject, signature: [UInt8]) {
        var token = token
        let headerByteCount = headerByteCount
        let signingInputCount = signingInputCount
        return try token.withUTF8 { bytes in
            Result { () throws(VerificationError) in
                let payload = try Self.decodeObject(
                    UnsafeBufferPointer(rebasing: bytes[(headerByteCount + 1)..<signingInputCount]), part: "payload")
                guard
                    let signature = Base64.decode(
                        UnsafeBufferPointer(rebasing: bytes[(signingInputCount + 1)...]), alphabet: .url)
                else {
                    throw VerificationError(.malformedJWS, "the signature is not base64url")
                }
                return (payload, signature)
            }
        }.get()
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

    /// Calls `body` with the header part of the token, exactly as received.
    func withHeaderSegment<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var token = token
        let count = headerByteCount
        return token.withUTF8 { body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// The range of `bytes` without the whitespace around it (`JSONParser.isWhitespace`: space,
    /// tab, CR, LF), as a token is read.
    private static func trimmedRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        guard let first = bytes.firstIndex(where: { !JSONParser.isWhitespace($0) }) else { return 0..<0 }
        var end = bytes.count
        while JSONParser.isWhitespace(bytes[end - 1]) { end -= 1 }
        return first..<end
    }

    /// `text` without the whitespace around it, as a token is read.
    public static func trimmed(_ text: String) -> String {
        var utf8 = text
        return utf8.withUTF8 { bytes in
            let range = trimmedRange(bytes)
            return range.count == bytes.count ? text : String(decoding: bytes[range], as: UTF8.self)
        }
    }
}
