// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerPresentation

/// `serve`'s access-log line names the route, never what a client put in the path.
@Suite struct AccessLogLineTests {
    func line(path: String) -> String {
        AccessLogLine.format(
            method: "GET", path: path, status: 404, responseBytes: 52, durationMicroseconds: 1500,
            remoteAddress: "192.0.2.7", at: AppleDate(wholeMilliseconds: 1_767_225_600_000))
    }

    @Test func aRouteIsLoggedAsItIs() {
        #expect(line(path: "/v1/notifications").hasSuffix(" GET /v1/notifications 404 52B 1.5ms"))
    }

    @Test(arguments: [
        "7E3FB20B-4CDB-47CC-936D-99D65F608138", "7e3fb20b4cdb47cc936d99d65f608138", "someone@example.com",
    ])
    func anAccountIsReplacedHoweverItIsWritten(_ account: String) {
        #expect(line(path: "/v1/accounts/\(account)/transactions").contains(" /v1/accounts/:account/transactions "))
    }

    @Test func aUUIDElsewhereIsReplaced() {
        #expect(line(path: "/v1/7e3fb20b-4cdb-47cc-936d-99d65f608138").contains(" /v1/:account "))
    }

    /// A token or JWS sent in the path by mistake is not logged, however it is cut up.
    @Test func aSegmentLongerThanAnyRoutesIsReplaced() {
        let jwsStart =
            "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWZUbGZkMGZOdkZXdnpDMVlJQU5zWGpBS0JnZ3Foa2pP"
        let logged = line(path: "/v1/accounts/\(jwsStart)/transactions/\(String(jwsStart.prefix(37)))")

        #expect(logged.contains(" /v1/accounts/:account/transactions/:long "))
        #expect(!logged.contains("eyJ"))
        #expect(line(path: "/\(String(jwsStart.prefix(36)))").contains(" /\(String(jwsStart.prefix(36))) "))
    }

    /// The path arrives percent-decoded: what would end the line, drive the terminal or split
    /// the line's fields is escaped, and the line keeps its seven fields.
    @Test(arguments: [
        ("/v1/a\nb", #"/v1/a\u{A}b"#), ("/v1/\u{1B}[2J", #"/v1/\u{1B}[2J"#), ("/v1/a b", #"/v1/a\u{20}b"#),
        ("/v1/\u{9B}1m\u{2028}\u{202E}", #"/v1/\u{9B}1m\u{2028}\u{202E}"#), ("/v1/café", "/v1/café"),
    ])
    func whatCouldForgeALineIsEscaped(_ path: String, _ logged: String) {
        let fields = line(path: path).split(separator: " ", omittingEmptySubsequences: false)

        #expect(fields.count == 7)
        #expect(fields.count > 3 && fields[3] == logged)
    }
}
