// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

/// `serve --timeout SECONDS` closes a connection silent that long, and `--header-timeout
/// SECONDS` one whose next request's headers are not all in that long after it opened or its
/// last answer: either closes a connection idle between requests and one stalled in the middle
/// of its headers. Told apart from the defaults (10 and 30 seconds) by order, not by a clock: a
/// connection to a service with the defaults, last active before those to the service with the
/// option at 1 second, is still open once they are closed.
@Suite(.serialized) struct ServeTimeoutTests {
    @Test(arguments: ["--timeout", "--header-timeout"])
    func connectionsAreClosedAfterTheGivenSecondsBeforeOnesUnderTheDefaults(option: String) throws {
        let standard = try LiveService()
        let short = try LiveService(arguments: [option, "1"])
        // Each read may wait longer than the defaults: a guard against hanging, not a limit of
        // the test.
        let waiting = try standard.connect(receiveTimeout: .seconds(120))
        #expect(try waiting.exchange("GET", "/healthz").status == 200)
        let idle = try short.connect(receiveTimeout: .seconds(120))
        #expect(try idle.exchange("GET", "/healthz").status == 200)
        let stalled = try short.connect(receiveTimeout: .seconds(120))
        try stalled.send("GET /healthz HTTP/1.1\r\nHost: 127.0.")

        let idleClosed = idle.waitForClose()
        let stalledClosed = stalled.waitForClose()
        let stillServed = try waiting.exchange("GET", "/healthz")
        let stopped = [standard.stop(), short.stop()]

        #expect(idleClosed)
        #expect(stalledClosed)
        #expect(stillServed.status == 200)
        #expect(stopped == [0, 0], "\(standard.diagnostics)\n\(short.diagnostics)")
    }
}
