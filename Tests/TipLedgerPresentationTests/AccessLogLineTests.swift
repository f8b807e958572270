// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerPresentation

/// `serve`'s access-log line: seven fields, whatever a client put in the path (`RouteTests` has
/// what of the path is masked before it gets here).
@Suite struct AccessLogLineTests {
    func line(path: String) -> String {
        AccessLogLine.format(
            method: "GET", path: path, status: 404, responseBytes: 52, durationMicroseconds: 1500,
            remoteAddress: "192.0.2.7", at: AppleDate(wholeMilliseconds: 1_767_225_600_000))
    }

    @Test func aRouteIsLoggedAsItIs() {
        #expect(line(path: "/v1/notifications").hasSuffix(" GET /v1/notifications 404 52B 1.5ms"))
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
