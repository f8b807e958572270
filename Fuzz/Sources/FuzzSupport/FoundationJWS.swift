// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
internal import TipLedgerCrypto

/// A compact JWS taken apart with Foundation's base64 and JSON readers, independently of the
/// project's own, to check what the verifier concluded.
public struct FoundationJWS {
    /// The header and payload parts as received: the signed bytes.
    public let signingInput: [UInt8]
    public let header: [String: Any]
    public let payload: [String: Any]
    public let signature: [UInt8]

    /// Splits `token`; nil unless it is three base64url parts whose first two are JSON objects.
    public init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = FoundationJWS.object(parts[0]),
            let payload = FoundationJWS.object(parts[1]), let signature = FoundationJWS.base64URL(parts[2])
        else { return nil }
        self.signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        self.header = header
        self.payload = payload
        self.signature = signature
    }

    /// The token a verified line carries: the line without its surrounding whitespace, or the
    /// `signedPayload` of a webhook body.
    public init?(line: String) {
        let trimmed = FoundationJWS.trimmed(line)
        guard trimmed.hasPrefix("{") else {
            self.init(trimmed)
            return
        }
        let body = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))
        guard let token = (body as? [String: Any])?["signedPayload"] as? String else { return nil }
        self.init(FoundationJWS.trimmed(token))
    }

    /// `text` without the spaces, tabs, carriage returns and line feeds around it.
    private static func trimmed(_ text: String) -> String {
        let blanks: Set<UInt8> = [0x20, 0x09, 0x0d, 0x0a]
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { !blanks.contains($0) }) else { return "" }
        let last = bytes.lastIndex { !blanks.contains($0) }!
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Whether the signature is a valid ES256 signature by the key of the first `x5c` certificate.
    public var isSignedByItsLeaf: Bool {
        guard let chain = header["x5c"] as? [String], let first = chain.first,
            let der = Data(base64Encoded: first), let leaf = try? Certificate(derEncoded: Array(der)),
            let key = try? leaf.publicKey()
        else { return false }
        return key.isValidES256Signature(signature, over: signingInput)
    }

    private static func base64URL(_ part: Substring) -> [UInt8]? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: text).map { Array($0) }
    }

    private static func object(_ part: Substring) -> [String: Any]? {
        guard let bytes = base64URL(part) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}
