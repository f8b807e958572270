// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

extension AppStoreAPICredentials {
    /// The audience Apple requires in every token.
    static let audience = "appstoreconnect-v1"
    /// How long a token is valid, in seconds: Apple refuses tokens that expire more than 60
    /// minutes after `iat`; a new one is made for every request, so a few minutes suffice.
    static let tokenLifetimeSeconds: Int64 = 300

    /// A new bearer token issued at `now`: an ES256 JWT with the header `alg`, `kid`, `typ` and the
    /// claims `iss`, `iat`, `exp`, `aud`, `bid`, as Apple specifies for each request.
    ///
    /// The token is a credential: it goes into the `Authorization` header and nowhere else.
    /// See <https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests>.
    func bearerToken(issuedAt now: AppleDate) throws(CryptoError) -> String {
        var header = JSONWriter()
        header.object { fields in
            fields.field("alg", "ES256")
            fields.field("kid", keyId)
            fields.field("typ", "JWT")
        }
        let issuedAt = now.wholeSeconds
        var claims = JSONWriter()
        claims.object { fields in
            fields.field("iss", issuerId)
            fields.field("iat", issuedAt)
            fields.field("exp", issuedAt + Self.tokenLifetimeSeconds)
            fields.field("aud", Self.audience)
            fields.field("bid", bundleId)
        }
        return try signer.sign(payload: claims.bytes, header: header.bytes)
    }
}
