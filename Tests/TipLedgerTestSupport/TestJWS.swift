// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
public import TipLedgerCrypto

/// Builds compact JWS by hand, including the malformed ones a verifier must reject.
///
/// Headers and payloads are given as JSON text so a test can write exactly the bytes it means,
/// wrong types and unknown members included.
public enum TestJWS {
    /// `x5c` entries for `certificates`: standard base64 of each DER encoding.
    public static func x5c(_ certificates: [Certificate]) -> [String] {
        certificates.map { Base64.encode($0.derEncoded, alphabet: .standard) }
    }

    /// A protected header `{"alg":...,"x5c":[...]}` as JSON text; `extra` members (JSON text
    /// without the braces, e.g. `"crit":["b64"]`) are appended.
    public static func header(alg: String = "ES256", x5c: [String]?, extra: String? = nil) -> String {
        var members = ["\"alg\":\"\(alg)\""]
        if let x5c { members.append("\"x5c\":[" + x5c.map { "\"\($0)\"" }.joined(separator: ",") + "]") }
        if let extra { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The standard header for `chain`: ES256 with the certificates in `x5c`.
    public static func header(chain: [Certificate]) -> String {
        header(x5c: x5c(chain))
    }

    /// `base64url(header) "." base64url(payload) "." base64url(signature)`, as given.
    public static func compact(header: String, payload: String, signature: [UInt8]) -> String {
        signingInput(header: header, payload: payload) + "." + Base64.encode(signature, alphabet: .url)
    }

    /// `base64url(header) "." base64url(payload)`.
    public static func signingInput(header: String, payload: String) -> String {
        Base64.encode(Array(header.utf8), alphabet: .url) + "." + Base64.encode(Array(payload.utf8), alphabet: .url)
    }

    /// A JWS of `payload` under `header`, signed with ES256 by `key` (raw `R‖S`).
    public static func sign(header: String, payload: String, key: PrivateKey) throws -> String {
        let input = signingInput(header: header, payload: payload)
        let signature = try key.signES256(Array(input.utf8))
        return input + "." + Base64.encode(signature, alphabet: .url)
    }

    /// The single certificate in the `x5c` of an Xcode-signed token.
    public static func xcodeCertificate(of token: String) throws -> Certificate {
        guard case .array(let x5c)? = try UnverifiedJWS.parse(token).header["x5c"], x5c.count == 1,
            let der = x5c[0].stringValue.flatMap({ Base64.decode($0, alphabet: .standard) })
        else { throw FixtureError(path: "x5c of an Xcode token") }
        return try Certificate(derEncoded: der)
    }

    /// A JWS of `payload` signed by `pki`'s leaf with its chain in `x5c`.
    public static func sign(_ payload: String, pki: TestPKI = TestChains.standard) throws -> String {
        try sign(header: header(chain: pki.chain), payload: payload, key: pki.leafKey)
    }

    /// A JWS of exactly `byteCount` bytes signed by `pki`'s leaf, its payload `payload(padding)`
    /// with `padding` as long as it takes. The header gets a `kid` member of one to three
    /// letters when the lengths need it: no base64url text is one byte longer than a multiple
    /// of four, so the payload alone cannot reach every length.
    public static func sign(
        byteCount: Int, pki: TestPKI = TestChains.standard, payload: (String) -> String
    ) throws -> String {
        func encodedCount(_ count: Int) -> Int { (4 * count + 2) / 3 }
        let signatureCount = encodedCount(64)
        let emptyPayloadCount = payload("").utf8.count
        for kid in [nil, "a", "ab", "abc"] {
            let header = header(x5c: x5c(pki.chain), extra: kid.map { "\"kid\":\"\($0)\"" })
            let payloadEncodedCount = byteCount - encodedCount(header.utf8.count) - 2 - signatureCount
            guard payloadEncodedCount % 4 != 1 else { continue }
            let paddingCount = payloadEncodedCount * 3 / 4 - emptyPayloadCount
            guard paddingCount >= 0 else { break }
            let token = try sign(
                header: header, payload: payload(String(repeating: "x", count: paddingCount)), key: pki.leafKey)
            if token.utf8.count == byteCount { return token }
        }
        throw LengthError.payloadTooLong(byteCount: byteCount)
    }

    /// Why `sign(byteCount:pki:payload:)` made no token.
    public enum LengthError: Error {
        /// The payload without padding already makes a longer token.
        case payloadTooLong(byteCount: Int)
    }

    /// The three dot-separated parts of a compact JWS, still encoded.
    public static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// `token` with its payload replaced by `payload` (JSON text); header and signature kept.
    public static func replacingPayload(of token: String, with payload: String) -> String {
        var parts = parts(token)
        parts[1] = Base64.encode(Array(payload.utf8), alphabet: .url)
        return parts.joined(separator: ".")
    }

    /// `token` with its signature replaced by `signature`.
    public static func replacingSignature(of token: String, with signature: [UInt8]) -> String {
        var parts = parts(token)
        parts[2] = Base64.encode(signature, alphabet: .url)
        return parts.joined(separator: ".")
    }

    /// The decoded signature bytes of `token`.
    public static func signature(of token: String) -> [UInt8] {
        Base64.decode(parts(token)[2], alphabet: .url) ?? []
    }
}
