// SPDX-License-Identifier: GPL-3.0-or-later
internal import FuzzSupport
internal import TipLedgerCore

/// Reads bodies as `verify` lines; it verifies nothing, so its trust is not used.
private let verifier = TrustedChain.shared.verifier()

/// The webhook body the App Store posts, `{"signedPayload":"<JWS>"}`, as the notification route
/// and `verify` unwrap it.
///
/// Properties: a body that is read gives the `signedPayload` string Foundation's
/// `JSONSerialization` reads from it, and wrapping that token again gives a body that reads back
/// the same; read as a `verify` line, it is taken for a webhook body carrying that token, or
/// refused as that token alone is; a refusal is `too_large` or `malformed_jws`, and `too_large`
/// only past the limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebhook(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Both callers refuse a body that is not UTF-8 first.
    guard let body = String(validating: bytes, as: UTF8.self) else { return 0 }
    do {
        let token = try WebhookBody.signedPayload(of: body)
        let other = (FoundationJSON.value(bytes) as? [String: Any])?["signedPayload"] as? String
        Property.require(
            other.map { FoundationJSON.isSameText(token, $0) } ?? false, "Foundation reads another signedPayload")
        checkLine(body, carrying: token)
        Property.require(
            (try? WebhookBody.signedPayload(of: WebhookBody.wrapping(token))) == token, "wrapping does not round-trip")
    } catch {
        let limit = VerificationPolicy.maximumInputBytes
        Property.require(
            error.code == .malformedJWS || (error.code == .tooLarge && bytes.count > limit),
            "refused with \(error)")
    }
    return 0
}

/// `body`, which carries `token`, read as a line is a webhook body with that token (without
/// the whitespace around it), or is refused as the token is on its own.
private func checkLine(_ body: String, carrying token: String) {
    do {
        let jws = try verifier.parse(line: body)
        Property.require(jws.isWebhookBody, "a body that reads is not taken for one")
        Property.require(jws.token == UnverifiedJWS.trimmed(token), "the line carries another token than the body")
    } catch {
        let alone = Result { () throws(VerificationError) in try UnverifiedJWS.parse(token) }
        guard case .failure(let refusal) = alone else {
            Property.require(false, "the body is refused (\(error)) though its token reads")
            return
        }
        Property.require(refusal.code == error.code, "the body is refused with \(error), its token with \(refusal)")
    }
}
