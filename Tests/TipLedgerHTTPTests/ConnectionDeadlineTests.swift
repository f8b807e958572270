// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// Live: the silence timeout and the header and body deadlines each cut the connection they
/// bound. Each test gives the rule under test a short limit and every other an hour, so the
/// close it waits for can only come from that rule; no test measures how long anything took.
@Suite struct ConnectionDeadlineTests {
    /// Long enough that nothing in a test reaches it.
    static let hour = 3600

    /// Sends `text` again and again, probing between sends (up to the connection's receive
    /// timeout), until the server closes the connection or answers, or `attempts` sends were
    /// made; returns what happened.
    func trickle(_ text: String, on connection: LoopbackConnection, attempts: Int = 1000) -> LoopbackConnection.Probe {
        for _ in 0..<attempts {
            do {
                try connection.send(text)
            } catch {
                return .closed  // EPIPE or ECONNRESET: already disconnected
            }
            let outcome = connection.probe()
            if outcome != .nothing { return outcome }
        }
        return .nothing
    }

    /// One byte of a request at a time, each followed by a pause longer than the 1 s silence
    /// timeout (a probe waiting up to 5 s for the server to hang up).
    @Test func clientTricklingSlowerThanTheTimeoutIsDisconnected() throws {
        let live = try LiveTestServer {
            $0.connectionTimeoutSeconds = 1
            $0.headerDeadlineSeconds = Self.hour
        }
        defer { live.stop() }
        let connection = try live.connect(receiveTimeout: .seconds(5))

        var outcome = LoopbackConnection.Probe.nothing
        for byte in "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8 where outcome == .nothing {
            outcome = trickle(String(decoding: [byte], as: UTF8.self), on: connection, attempts: 1)
        }

        #expect(outcome == .closed)
    }

    /// Each header line comes well within the silence timeout, but the headers as a whole
    /// take longer than their 1 s deadline: the server hangs up without an answer.
    @Test func headersTricklingPastTheirDeadlineAreCutOff() throws {
        let live = try LiveTestServer {
            $0.connectionTimeoutSeconds = Self.hour
            $0.headerDeadlineSeconds = 1
        }
        defer { live.stop() }
        let connection = try live.connect(receiveTimeout: .milliseconds(200))
        try connection.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")

        #expect(trickle("X-Trickle: 1\r\n", on: connection) == .closed)
        #expect(live.requests.isEmpty)
    }

    /// A body trickling in, and between the pieces of a chunked body what libmicrohttpd reads
    /// without calling the handler (chunk sizes, extensions, trailers), are cut off at the body
    /// deadline however steadily they come, as is a body that never starts.
    @Test(arguments: [
        ("a body", "Content-Length: 60000\r\n\r\n", "x"),
        ("a chunk extension", "Transfer-Encoding: chunked\r\n\r\n1;", "a"),
        ("trailers", "Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n", "X-T: 1\r\n"),
        ("a chunk size", "Transfer-Encoding: chunked\r\n\r\n", "0"),
    ])
    func tricklingPastTheBodyDeadlineIsCutOff(_ name: String, _ headers: String, _ trickle: String) throws {
        let live = try LiveTestServer {
            $0.connectionTimeoutSeconds = Self.hour
            $0.bodyDeadlineSeconds = 1
        }
        defer { live.stop() }
        let connection = try live.connect(receiveTimeout: .milliseconds(250))
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers)

        #expect(self.trickle(trickle, on: connection) == .closed, "\(name)")
        live.stop()
        #expect(live.requests.isEmpty, "\(name)")
    }

    @Test func clientStallingMidBodyIsDisconnectedWithoutAnAnswer() throws {
        let live = try LiveTestServer {
            $0.connectionTimeoutSeconds = 1
            $0.bodyDeadlineSeconds = Self.hour
        }
        defer { live.stop() }
        let connection = try live.connect()

        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nonly ten b")

        #expect(connection.waitForClose())
        live.stop()
        #expect(live.requests.isEmpty)
        #expect(live.entries.isEmpty)
    }

    /// The header deadline runs only while headers are awaited: a handler may take longer, and
    /// each request on a kept-alive connection starts it again (`RequestDeadlinesTests` holds
    /// the rule to a clock; this, the server to the rule). What passes for time here is
    /// connections the server cuts: one waiting for headers once the header deadline has
    /// passed, one waiting for its body once the shorter body deadline has.
    @Test func theHeaderDeadlineSparesAnsweredRequestsAndRestartsForTheNext() throws {
        let live = try LiveTestServer {
            $0.connectionTimeoutSeconds = Self.hour
            $0.headerDeadlineSeconds = 5
            $0.bodyDeadlineSeconds = 1
        }
        defer { live.stop() }
        let connection = try live.connect()
        /// Opens a connection, has it answered once, and sends `bytes` on it.
        func bystander(sending bytes: String) throws -> LoopbackConnection {
            let bystander = try live.connect(receiveTimeout: .seconds(120))
            #expect(try bystander.exchange("GET", "/bystander").status == 200)
            try bystander.send(bytes)
            return bystander
        }

        // Answered just before the held request is sent: its header deadline runs out while
        // the handler holds, as the held request's would (give or take that moment) if the
        // handler's time counted. The sweep needs no worker; the handler keeps one busy.
        let waiting = try bystander(sending: "")
        try connection.sendRequest("GET", "/hold")
        #expect(live.handler.entered.wait(seconds: 60))
        #expect(waiting.waitForClose())
        live.handler.release.signal()
        let held = try connection.readResponse()
        // Six waits of a body deadline each (and a sweep or more), longer together than the
        // header deadline: answered only if each request starts it again.
        var later: [Int] = []
        for _ in 0..<6 {
            let stalled = try bystander(sending: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
            #expect(stalled.waitForClose())
            try connection.sendRequest("GET", "/again")
            later.append(try connection.readResponse().status)
        }

        #expect(held.status == 200)
        #expect(held.bodyText == "released")
        #expect(later == [200, 200, 200, 200, 200, 200])
    }
}
