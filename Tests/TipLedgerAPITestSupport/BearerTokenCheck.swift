// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto
internal import TipLedgerHTTP

/// Checks a request's bearer token as Apple does: an ES256 JWT signed by the account's key,
/// with exactly the header `alg`, `kid`, `typ` and the claims `iss`, `iat`, `exp`, `aud`, `bid`.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests>.
struct BearerTokenCheck: Sendable {
    let account: APITestAccount
    /// When set, the token must be valid at its time: issued no later than a minute ahead,
    /// not yet expired.
    let clock: WallClock?

    /// The token's header and claims, or why Apple would refuse it.
    func check(_ headers: HTTPHeaders) -> Result<(header: JSONObject, claims: JSONObject), FakeRejection> {
        guard headers.values(for: "Authorization").count == 1, let authorization = headers["Authorization"],
            authorization.hasPrefix("Bearer ")
        else { return .failure(FakeRejection("no single Authorization: Bearer field")) }
        let token = String(authorization.dropFirst("Bearer ".count))
        guard let jws = try? UnverifiedJWS.parse(token), let signature = try? jws.signature,
            let claims = try? jws.payload, let lastDot = token.lastIndex(of: ".")
        else {
            return .failure(FakeRejection("the bearer token is not a compact JWS"))
        }
        let signingInput = Array(token[..<lastDot].utf8)
        guard account.publicKey.isValidES256Signature(signature, over: signingInput) else {
            return .failure(FakeRejection("the bearer token's signature is not the account key's"))
        }
        let header = jws.header
        guard Set(header.map(\.name)) == ["alg", "kid", "typ"], header["alg"] == .string("ES256"),
            header["kid"] == .string(account.keyId), header["typ"] == .string("JWT")
        else { return .failure(FakeRejection("the bearer token's header is not alg ES256, kid, typ JWT")) }
        guard Set(claims.map(\.name)) == ["iss", "iat", "exp", "aud", "bid"] else {
            return .failure(FakeRejection("the bearer token's claims are not iss, iat, exp, aud, bid"))
        }
        guard claims["iss"] == .string(account.issuerId), claims["aud"] == .string("appstoreconnect-v1"),
            claims["bid"] == .string(account.bundleId)
        else { return .failure(FakeRejection("the bearer token's iss, aud or bid is not the account's")) }
        guard case .integer(let issuedAt)? = claims["iat"], case .integer(let expires)? = claims["exp"],
            expires > issuedAt, expires - issuedAt <= 3600
        else { return .failure(FakeRejection("the bearer token's exp is not within 60 minutes after its iat")) }
        if let now = clock?.now().wholeSeconds {
            guard issuedAt <= now + 60, expires > now else {
                return .failure(FakeRejection("the bearer token is not valid at \(now)"))
            }
        }
        return .success((header, claims))
    }
}
