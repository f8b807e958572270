// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A compact JWS taken apart by the tests themselves (Foundation's base64 and JSON, none of
/// the project's code), to see what was really signed.
struct CompactJWS {
    let header: [String: Any]
    let payload: [String: Any]
    /// The signature bytes as sent (64 bytes of raw R‖S for ES256).
    let signature: [UInt8]
    /// The ASCII bytes the signature covers: `header "." payload` as received.
    let signingInput: String

    init(_ token: String) throws {
        let parts = try Self.parts(token)
        header = try JSONValue.object(try Self.base64URLDecoded(parts[0]))
        payload = try JSONValue.object(try Self.base64URLDecoded(parts[1]))
        signature = [UInt8](try Self.base64URLDecoded(parts[2]))
        signingInput = String(decoding: parts[0], as: UTF8.self) + "." + String(decoding: parts[1], as: UTF8.self)
    }

    /// Only the payload of `token` (quicker than taking the whole token apart).
    static func payload(of token: String) throws -> [String: Any] {
        try JSONValue.object(try base64URLDecoded(try parts(token)[1]))
    }

    /// The three dot-separated parts, surrounding whitespace trimmed.
    private static func parts(_ token: String) throws -> [ArraySlice<UInt8>] {
        let bytes = Array(token.utf8)
        let start = bytes.firstIndex { $0 > 0x20 } ?? bytes.endIndex
        let end = (bytes.lastIndex { $0 > 0x20 } ?? bytes.startIndex - 1) + 1
        let parts = bytes[start..<max(start, end)].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw CompactJWSError(reason: "\(parts.count) parts, not 3") }
        return parts
    }

    /// The JWS inside a webhook body `{"signedPayload":"..."}`.
    init(webhookBody: String) throws {
        guard let token = try JSONValue.object(webhookBody)["signedPayload"] as? String else {
            throw CompactJWSError(reason: "no signedPayload in \(webhookBody.prefix(80))")
        }
        try self.init(token)
    }

    /// The DER certificates of the `x5c` header, leaf first.
    func certificateChain() throws -> [Data] {
        guard let entries = header["x5c"] as? [String] else { throw CompactJWSError(reason: "no x5c header") }
        return try entries.map {
            guard let der = Data(base64Encoded: $0) else { throw CompactJWSError(reason: "x5c entry is not base64") }
            return der
        }
    }

    /// Base64url without padding, as JWS uses it.
    static func base64URLDecoded(_ text: ArraySlice<UInt8>) throws -> Data {
        var standard = Data(
            text.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 })
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4))
        guard let data = Data(base64Encoded: standard) else {
            throw CompactJWSError(reason: "not base64url: \(String(decoding: text.prefix(40), as: UTF8.self))")
        }
        return data
    }
}

/// A token the tests could not take apart.
struct CompactJWSError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "not a compact JWS: \(reason)" }
}
