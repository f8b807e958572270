// SPDX-License-Identifier: GPL-3.0-or-later
internal import FuzzSupport
internal import TipLedgerCore

/// The webhook body the App Store posts, `{"signedPayload":"<JWS>"}`, as the notification route
/// and `verify` unwrap it.
///
/// Properties: a body that is read gives the `signedPayload` string Foundation's
/// `JSONSerialization` reads from it, is taken for a body, and wrapping that token again gives a
/// body that reads back the same; a refusal is `too_large` or `malformed_jws`, and `too_large`
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
        Property.require(WebhookBody.isBody(body), "a body that reads is not taken for one")
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
