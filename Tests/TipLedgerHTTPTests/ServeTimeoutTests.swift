// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

/// `serve --timeout SECONDS` closes a connection that stays silent that long, idle between
/// requests or stalled in the middle of one. Told apart from the default (30 seconds) by order,
/// not by a clock: a connection to a service with the default, last active before those to the
/// service with `--timeout 1`, is still open once they are closed.
@Suite(.serialized) struct ServeTimeoutTests {
    @Test func connectionsSilentForTheTimeoutAreClosedBeforeOnesUnderTheDefault() throws {
        let standard = try LiveService()
        let short = try LiveService(arguments: ["--timeout", "1"])
        // Each read may wait longer than the default timeout: a guard against hanging, not a
        // limit of the test.
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
