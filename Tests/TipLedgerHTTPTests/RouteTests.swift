// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// What of a request's path an access log shows (`AccessLogEntry.loggedPath`): the route, never
/// what a client put in the path.
@Suite struct RouteTests {
    func logged(_ path: String) -> String {
        AccessLogEntry(
            method: "GET", path: path, status: 404, handled: true, responseBytes: 52, requestBytes: 0,
            durationMicroseconds: 1500, remoteAddress: "192.0.2.7", completed: true
        ).loggedPath
    }

    @Test func aRouteIsShownAsItIs() {
        #expect(logged("/v1/notifications") == "/v1/notifications")
    }

    @Test(arguments: [
        "7E3FB20B-4CDB-47CC-936D-99D65F608138", "7e3fb20b4cdb47cc936d99d65f608138", "someone@example.com",
    ])
    func anAccountIsReplacedHoweverItIsWritten(_ account: String) {
        #expect(logged("/v1/accounts/\(account)/transactions") == "/v1/accounts/:account/transactions")
    }

    @Test func aUUIDElsewhereIsReplaced() {
        #expect(logged("/v1/7e3fb20b-4cdb-47cc-936d-99d65f608138") == "/v1/:account")
    }

    /// A token or JWS sent in the path by mistake is not shown, however it is cut up.
    @Test func aSegmentLongerThanAnyRoutesIsReplaced() {
        let jwsStart =
            "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWZUbGZkMGZOdkZXdnpDMVlJQU5zWGpBS0JnZ3Foa2pP"

        #expect(
            logged("/v1/accounts/\(jwsStart)/transactions/\(String(jwsStart.prefix(37)))")
                == "/v1/accounts/:account/transactions/:long")
        #expect(logged("/\(String(jwsStart.prefix(15)))") == "/\(String(jwsStart.prefix(15)))")
    }

    /// An API token sent in the path by mistake is not shown, however short `serve` lets it be:
    /// 16 characters, or the 32 of `openssl rand -hex 16`.
    @Test(arguments: ["0123456789abcdef", "9f86d081884c7d659a2feaa0c55ad015"])
    func aSegmentAsLongAsAnAPITokenIsReplaced(_ token: String) {
        #expect(logged("/v1/\(token)") == "/v1/:long")
        #expect(logged("/\(token)/report") == "/:long/report")
    }
}
