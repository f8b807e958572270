// SPDX-License-Identifier: GPL-3.0-or-later

/// The body the App Store posts to a notification URL: `{"signedPayload":"<JWS>"}`.
///
/// See https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2
public enum WebhookBody {
    /// The `signedPayload` of a webhook body; other members are ignored.
    public static func signedPayload(of body: String) throws(VerificationError) -> String {
        let count = body.utf8.count
        guard count <= VerificationPolicy.maximumInputBytes else {
            throw VerificationError(
                .tooLarge, "the body is \(count) bytes; the limit is \(VerificationPolicy.maximumInputBytes)")
        }
        let shape = #"a notification is posted as {"signedPayload":"<JWS>"}"#
        let text = body.utf8.drop { JSONParser.isWhitespace($0) }
        guard !text.isEmpty else {
            throw VerificationError(.malformedJWS, "the body is empty; \(shape)")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            // A bare token is the likeliest mistake: it starts with the base64url of `{"`.
            let bare = text.starts(with: "eyJ".utf8)
            throw VerificationError(
                .malformedJWS, bare ? "the body is a bare JWS; \(shape)" : "the body is not JSON: \(error)")
        }
        guard case .string(let token)? = value.objectValue?["signedPayload"] else {
            throw VerificationError(.malformedJWS, "the body has no signedPayload string; \(shape)")
        }
        return token
    }

    /// `{"signedPayload":"<token>"}` for `token`.
    public static func wrapping(_ token: String) -> String {
        var writer = JSONWriter()
        writer.object { $0.field("signedPayload", token) }
        return writer.text
    }
}
