// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCrypto

/// The query routes' credential: one `Authorization` field carrying the configured token with
/// the bearer scheme (RFC 6750 section 2.1) or, for the report page a browser opens, as the
/// password of a Basic credential (`BasicCredentials`); compared in constant time.
struct BearerAuthorization: Sendable {
    private let token: [UInt8]

    init(token: String) {
        self.token = Array(token.utf8)
    }

    /// Whether `headers` carry the token; with `basic`, as a Basic password too.
    func admits(_ headers: HTTPHeaders, basic: Bool = false) -> Bool {
        // Two Authorization fields (a proxy adding one to the client's) name no one credential.
        let fields = headers.values(for: "Authorization")
        // Whitespace after a field's value is not part of it (RFC 9112 section 5.1), though
        // libmicrohttpd keeps it.
        let header =
            fields.count == 1
            ? Array(fields[0].utf8.reversed().drop(while: HTTPSyntax.isOptionalWhitespace).reversed()) : []
        // The scheme name is case-insensitive (RFC 9110 section 11.1): "bearer" works too; one
        // or more spaces follow it (section 11.4).
        let scheme = "bearer".utf8
        let hasScheme =
            header.count > scheme.count && header[scheme.count] == 0x20
            && HTTPSyntax.equalIgnoringASCIICase(header.prefix(scheme.count), scheme)
        let given =
            hasScheme
            ? Array(header.dropFirst(scheme.count).drop { $0 == 0x20 })
            : basic ? BasicCredentials.password(in: header) ?? [] : []
        return !given.isEmpty && ConstantTime.equals(given, token)
    }

    /// The answer to a request without the token: 401 with the challenge RFC 6750 section 3 asks for.
    static let challenge: HTTPResponse = {
        var response = HTTPResponse.error(.unauthorized, "a valid bearer token is required")
        response.headers.set("WWW-Authenticate", "Bearer realm=\"tipledger\"")
        return response
    }()

    /// The answer to a browser without the token: the Basic challenge makes it ask for one.
    static let basicChallenge: HTTPResponse = {
        var response = HTTPResponse.error(.unauthorized, "the API token is required")
        response.headers.set("WWW-Authenticate", BasicCredentials.challenge)
        return response
    }()
}
