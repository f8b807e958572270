// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Live tests: a real server on a loopback port chosen by the kernel, driven byte by byte.
@Suite struct HTTPServerTests {
    @Test func portZeroReportsTheBoundPort() throws {
        let server = try startTestServer()
        defer { server.stop() }
        #expect(server.port != 0)
        let response = try LoopbackConnection(port: server.port).exchange("GET", "/")
        #expect(response.status == 200)
    }

    @Test func bindingABusyPortFailsWithItsErrno() throws {
        let first = try startTestServer()
        defer { first.stop() }
        let busy = HTTPServerConfiguration(listenAddress: try ListenAddress(host: "127.0.0.1", port: first.port))
        #expect(throws: HTTPServerError.cannotListen(address: "127.0.0.1:\(first.port)", errno: EADDRINUSE)) {
            _ = try HTTPServer(configuration: busy) { _ in .text("unreachable") }
        }
    }

    @Test func getRoundTripCarriesMethodPathAndRemoteAddress() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }

        let response = try LoopbackConnection(port: server.port).exchange("GET", "/v1/report")

        #expect(response.status == 200)
        #expect(response.bodyText == "GET /v1/report")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        let request = try #require(handler.recorder.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/report")
        #expect(request.body.isEmpty)
        #expect(request.remoteAddress == "127.0.0.1")
    }

    @Test func postBodyIsEchoedByteForByte() throws {
        let server = try startTestServer()
        defer { server.stop() }
        let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }  // includes NUL and high bytes

        let response = try LoopbackConnection(port: server.port).exchange("POST", "/echo", body: body)

        #expect(response.status == 200)
        #expect(response.body == body)
        #expect(response.headers["Content-Length"] == "5000")
    }

    /// A path is percent-decoded before routing, but not one holding %00 (which would end it
    /// early for C strings: "/metrics%00.css" is not "/metrics") or %2F (a slash a proxy's path
    /// rules did not see): those stay as sent, and match no route.
    @Test(arguments: [
        ("/%68ello", "/hello"), ("/echo%00/x.css", "/echo%00/x.css"), ("/v1%2Freport", "/v1%2Freport"),
        ("/v1%2freport", "/v1%2freport"), ("/a%20b", "/a b"),
    ])
    func aPathIsDecodedUnlessItHoldsANulOrASlash(_ sent: String, _ seen: String) throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }

        let response = try LoopbackConnection(port: server.port).exchange("GET", sent + "?q=%00")

        #expect(response.bodyText == "GET \(seen)")
        let request = try #require(handler.recorder.requests.first)
        #expect(request.path == seen)
        #expect(request.query["q"] == "%00")
    }

    @Test func queryParametersAreDecodedAndKeptApartFromThePath() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }

        let target = "/v1/report?by=product&name=tip%20jar&by=day&flag&empty=&slash=a%2Fb&plus=a+b"
        let response = try LoopbackConnection(port: server.port).exchange("GET", target)

        #expect(response.bodyText == "GET /v1/report")
        let query = try #require(handler.recorder.requests.first).query
        #expect(query["by"] == "product")
        #expect(query.values(for: "by") == ["product", "day"])
        #expect(query["name"] == "tip jar")
        #expect(query["flag"] == "")
        #expect(query["empty"] == "")
        #expect(query["slash"] == "a/b")
        #expect(query["missing"] == nil)
        #expect(query["plus"] == "a b")
        #expect(query.count == 7)
    }

    @Test func headerLookupIgnoresCaseAndKeepsRepeats() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }

        _ = try LoopbackConnection(port: server.port).exchange(
            "GET", "/", headers: [("Authorization", "Bearer t0ken"), ("X-Tip", "one"), ("x-tip", "two")])

        let headers = try #require(handler.recorder.requests.first).headers
        #expect(headers["authorization"] == "Bearer t0ken")
        #expect(headers["AUTHORIZATION"] == "Bearer t0ken")
        #expect(headers.values(for: "X-TIP") == ["one", "two"])
        #expect(headers["host"] == "127.0.0.1")
        #expect(headers["x-absent"] == nil)
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let server = try startTestServer()
        defer { server.stop() }
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: server.configuration.maximumBodyBytes)

        let response = try LoopbackConnection(port: server.port).exchange("POST", "/echo", body: body)

        #expect(response.status == 200)
        #expect(response.body == body)
    }

    @Test func declaredOversizeBodyIsRefusedBeforeItIsSent() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        // Only the headers: the server must answer without waiting for the body.
        let length = server.configuration.maximumBodyBytes + 1
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 413)
        #expect(response.bodyText.hasPrefix(#"{"error":"body_too_large","message":"#))
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(connection.waitForClose())
        #expect(handler.recorder.requests.isEmpty)
    }

    /// Framing a proxy in front could read differently from the server is refused, never
    /// guessed (RFC 9112 sections 2.2, 3.2, 5.1 and 6.3): the bytes after it must not be taken
    /// for a request. (A single malformed value such as "5, 6" libmicrohttpd refuses itself.)
    /// Whitespace before a colon would hide the field from libmicrohttpd's framing, which keeps
    /// it in the name.
    @Test(arguments: [
        "Content-Length: 5\r\nContent-Length: 6\r\n", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n", "Transfer-Encoding: identity\r\n",
        "Transfer-Encoding: chunked \r\n", "Content-Length : 5\r\n", "Content-Length\t: 5\r\n",
        "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n", "Host: elsewhere\r\nContent-Length: 5\r\n",
        "X-Bare: a\rb\r\nContent-Length: 5\r\n",
    ])
    func ambiguousBodyFramingIsABadRequest(_ framing: String) throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n\(framing)\r\nhello"
                + "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 400)
        #expect(response.bodyText.hasPrefix(#"{"error":"bad_request","message":"#))
        #expect(connection.waitForClose())
        server.stop()
        #expect(handler.recorder.requests.isEmpty)
        #expect(handler.recorder.entries.map { [$0.status, $0.handled ? 1 : 0] } == [[400, 0]])
    }

    /// A byte no field value may hold (RFC 9110 section 5.5) is refused with the connection,
    /// NUL included, though libmicrohttpd hands over a value cut at its NUL: `Content-Length:
    /// 3\0 5` would read 3 bytes and take the rest for a request where a proxy keeping the whole
    /// value read 5, and a token or coding hidden behind a NUL would pass.
    @Test(arguments: [
        "Content-Length: 3\u{0} 5\r\n", "Transfer-Encoding: chunked\u{0}, gzip\r\n",
        "Authorization: Bearer live-token\u{0}junk\r\nContent-Length: 5\r\n",
        "Content-Length: 5\r\nX-Last: a\u{0}b\r\n", "Content-Length: 5\r\nX-Trailing: a\u{0}\r\n",
        "X-Only: \u{0}\r\nContent-Length: 5\r\n", "X-Control: a\u{1}b\r\nContent-Length: 5\r\n",
        "X-Escape: \u{1B}[2J\r\nContent-Length: 5\r\n", "X-Delete: a\u{7F}\r\nContent-Length: 5\r\n",
        "X-Folded: a\r\n b\r\nContent-Length: 5\r\n",
    ])
    func aByteNoFieldValueMayHoldIsABadRequest(_ field: String) throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n\(field)\r\nhello"
                + "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 400)
        #expect(response.bodyText.hasPrefix(#"{"error":"bad_request","message":"a header field's"#))
        #expect(connection.waitForClose())
        server.stop()
        #expect(handler.recorder.requests.isEmpty)
        #expect(handler.recorder.entries.map(\.status) == [400])
    }

    /// What the NUL check must let through: bare LF line endings, empty and padded values,
    /// bytes from 0x80 up, a request without fields, empty lines before a request, and the
    /// second of two requests sent together.
    @Test(arguments: [
        ("GET /a HTTP/1.1\nHost: x\nX-A: b\n\n", ["/a"]),
        ("GET /a HTTP/1.1\r\nHost: x\r\nX-Empty:\r\nX-Padded: \t b \t\r\n\r\n", ["/a"]),
        ("GET /a HTTP/1.1\r\nHost: x\r\nX-Name: Zoë 🎉\r\n\r\n", ["/a"]),
        ("GET /a HTTP/1.0\r\n\r\n", ["/a"]),
        ("\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n", ["/a"]),
        ("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nX-B: c\n\r\n", ["/a", "/b"]),
    ])
    func wellFormedFieldsPassTheNulCheck(_ requests: String, _ paths: [String]) throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send(requests)
        let statuses = try paths.map { _ in try connection.readResponse().status }

        #expect(statuses == paths.map { _ in 200 })
        #expect(handler.recorder.requests.map(\.path) == paths)
    }

    /// RFC 9112 section 3.2: an HTTP/1.1 request without a Host field is a bad request; an
    /// HTTP/1.0 one may lack it.
    @Test func anHTTP11RequestWithoutHostIsABadRequest() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }

        let without = try LoopbackConnection(port: server.port)
        try without.send("GET /echo HTTP/1.1\r\n\r\n")
        let refused = try without.readResponse()
        #expect(refused.status == 400)
        #expect(refused.bodyText == #"{"error":"bad_request","message":"an HTTP/1.1 request needs one Host field"}"#)

        let old = try LoopbackConnection(port: server.port)
        try old.send("GET /echo HTTP/1.0\r\n\r\n")
        #expect(try old.readResponse().status == 200)
        server.stop()
        #expect(handler.recorder.requests.map(\.path) == ["/echo"])
    }

    /// RFC 9112 section 6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing.
    @Test func anHTTP10RequestWithTransferEncodingIsABadRequest() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send("POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")

        #expect(try connection.readResponse().status == 400)
        #expect(connection.waitForClose())
        server.stop()
        #expect(handler.recorder.requests.isEmpty)
    }

    @Test func aRepeatedContentLengthThatAgreesIsAccepted() throws {
        let server = try startTestServer()
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
        let response = try connection.readResponse()

        #expect(response.status == 200)
        #expect(response.bodyText == "hello")
    }

    @Test func expectContinueWithOversizeBodyGets413InsteadOfContinue() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\nExpect: 100-continue\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 413)
        #expect(connection.waitForClose())
        #expect(handler.recorder.requests.isEmpty)
    }

    @Test func expectContinueWithSmallBodyGetsContinueThenTheAnswer() throws {
        let server = try startTestServer()
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try connection.readResponse()
        try connection.send("hello")
        let final = try connection.readResponse()

        #expect(interim.status == 100)
        #expect(final.status == 200)
        #expect(final.bodyText == "hello")
    }

    @Test func chunkedBodyGrowingPastTheLimitGets413() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 8 * 1024)
        for _ in 0..<9 {  // 72 KiB in all
            try connection.send(Array("2000\r\n".utf8) + chunk + Array("\r\n".utf8))
        }
        try connection.send("0\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 413)
        #expect(response.bodyText.contains("body_too_large"))
        #expect(handler.recorder.requests.isEmpty)
    }

    /// The coding's name is compared without regard to case (RFC 9112 section 7).
    @Test(arguments: ["chunked", "Chunked", "CHUNKED"])
    func chunkedBodyWithinTheLimitIsReassembled(_ coding: String) throws {
        let server = try startTestServer()
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: \(coding)\r\n\r\n")
        try connection.send("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 200)
        #expect(response.bodyText == "hello world")
    }

    @Test func endlessChunkedBodyIsCutOffWithoutAnAnswer() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        // 16 MiB, far past the limit plus the 1 MiB the server reads and discards before it
        // gives up: a send fails once the server has closed, or the close is seen afterwards.
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk =
            Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "z"), count: 64 * 1024) + Array("\r\n".utf8)
        for _ in 0..<256 {
            do { try connection.send(chunk) } catch { break }
        }

        #expect(connection.probe() == .closed)
        #expect(handler.recorder.requests.isEmpty)
    }

    @Test func clientTricklingSlowerThanTheTimeoutIsDisconnected() throws {
        let server = try startTestServer { $0.connectionTimeoutSeconds = 1 }
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port, receiveTimeout: .seconds(3))
        let clock = ContinuousClock()
        let start = clock.now

        // One byte of a request at a time, each followed by a pause longer than the 1 s timeout:
        // the pause is a bounded wait for the server to hang up.
        var outcome = LoopbackConnection.Probe.nothing
        for byte in "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8 {
            do {
                try connection.send([byte])
            } catch {
                outcome = .closed  // EPIPE or ECONNRESET: already disconnected
                break
            }
            outcome = connection.probe()
            if outcome != .nothing { break }
        }

        #expect(outcome == .closed)
        #expect(clock.now - start < .seconds(3))
    }

    @Test func headersTricklingPastTheirDeadlineAreCutOff() throws {
        // Each header line comes well within the 10 s silence timeout, but the headers as a
        // whole take longer than their 1 s deadline: the server hangs up without an answer.
        let handler = TestHandler()
        let server = try startTestServer(handler) {
            $0.connectionTimeoutSeconds = 10
            $0.headerDeadlineSeconds = 1
        }
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port, receiveTimeout: .milliseconds(200))
        try connection.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")

        let (outcome, took) = trickle("X-Trickle: 1\r\n", on: connection)

        #expect(outcome == .closed)
        #expect(took < .seconds(4))
        #expect(handler.recorder.requests.isEmpty)
    }

    /// Sends `text` again and again, probing between sends, until the server closes the
    /// connection or answers, or 8 seconds pass; returns what happened and how long it took.
    func trickle(_ text: String, on connection: LoopbackConnection) -> (LoopbackConnection.Probe, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        var outcome = LoopbackConnection.Probe.nothing
        while outcome == .nothing && clock.now - start < .seconds(8) {
            do {
                try connection.send(text)
            } catch {
                outcome = .closed
                break
            }
            outcome = connection.probe()
        }
        return (outcome, clock.now - start)
    }

    /// The deadline runs only while headers are awaited: a handler may take longer, and each
    /// request on a kept-alive connection starts it again.
    @Test func theHeaderDeadlineSparesAnsweredRequestsAndRestartsForTheNext() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler) { $0.headerDeadlineSeconds = 1 }
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port, receiveTimeout: .seconds(5))

        try connection.sendRequest("GET", "/hold")
        #expect(handler.entered.wait(timeout: .now() + 5) == .success)
        usleep(1_600_000)
        handler.release.signal()
        let held = try connection.readResponse()
        var later: [Int] = []
        for _ in 0..<3 {
            usleep(600_000)
            try connection.sendRequest("GET", "/again")
            later.append(try connection.readResponse().status)
        }

        #expect(held.status == 200)
        #expect(held.bodyText == "released")
        #expect(later == [200, 200, 200])
    }

    @Test func clientStallingMidBodyIsDisconnectedWithoutAnAnswer() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler) { $0.connectionTimeoutSeconds = 1 }
        let connection = try LoopbackConnection(port: server.port, receiveTimeout: .seconds(5))

        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nonly ten b")

        #expect(connection.waitForClose())
        server.stop()
        #expect(handler.recorder.requests.isEmpty)
        #expect(handler.recorder.entries.isEmpty)
    }

    @Test func bodyTricklingPastItsDeadlineIsCutOff() throws {
        // Each byte comes well within the 5 s silence timeout, but the body as a whole takes
        // longer than its 1 s deadline: the server hangs up without calling the handler.
        let handler = TestHandler()
        let server = try startTestServer(handler) {
            $0.connectionTimeoutSeconds = 5
            $0.bodyDeadlineSeconds = 1
        }
        let connection = try LoopbackConnection(port: server.port, receiveTimeout: .milliseconds(250))
        let clock = ContinuousClock()
        let start = clock.now
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 40\r\n\r\n")
        var outcome = LoopbackConnection.Probe.nothing
        for byte in Array(repeating: UInt8(ascii: "x"), count: 40) {
            do {
                try connection.send([byte])
            } catch {
                outcome = .closed
                break
            }
            outcome = connection.probe()  // waits up to the 250 ms receive timeout
            if outcome != .nothing { break }
        }
        #expect(outcome == .closed)
        #expect(clock.now - start < .seconds(4))
        server.stop()
        #expect(handler.recorder.requests.isEmpty)
    }

    /// Between the pieces of a chunked body libmicrohttpd reads chunk sizes, extensions and
    /// trailers without calling the handler: trickled, they are cut off at the body deadline all
    /// the same, as is a body that never starts.
    @Test(arguments: [
        ("a chunk extension", "Transfer-Encoding: chunked\r\n\r\n1;", "a"),
        ("trailers", "Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n", "X-T: 1\r\n"),
        ("a chunk size", "Transfer-Encoding: chunked\r\n\r\n", "0"),
    ])
    func chunkedFramingTricklingPastTheBodyDeadlineIsCutOff(_ name: String, _ headers: String, _ trickle: String)
        throws
    {
        let handler = TestHandler()
        let server = try startTestServer(handler) {
            $0.connectionTimeoutSeconds = 5
            $0.bodyDeadlineSeconds = 1
        }
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port, receiveTimeout: .milliseconds(250))
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers)

        let (outcome, took) = self.trickle(trickle, on: connection)

        #expect(outcome == .closed, "\(name)")
        #expect(took < .seconds(4), "\(name)")
        #expect(handler.recorder.requests.isEmpty, "\(name)")
    }

    /// Two keep-alive connections to `server`, each proven accepted by a full exchange.
    func twoAcceptedConnections(to server: HTTPServer) throws -> (LoopbackConnection, LoopbackConnection) {
        let first = try LoopbackConnection(port: server.port)
        let second = try LoopbackConnection(port: server.port)
        #expect(try first.exchange("GET", "/one").status == 200)
        #expect(try second.exchange("GET", "/two").status == 200)
        return (first, second)
    }

    @Test func connectionsOverTheLimitAreNotServedUntilOneCloses() throws {
        let server = try startTestServer {
            $0.workerThreads = 2
            $0.connectionLimit = 2
        }
        defer { server.stop() }

        // Two keep-alive connections, each proven accepted by a full exchange, fill the limit.
        let (first, second) = try twoAcceptedConnections(to: server)

        // A third connection completes in the kernel's queue, but its request is not served.
        let third = try LoopbackConnection(port: server.port, receiveTimeout: .milliseconds(300))
        try third.sendRequest("GET", "/three")
        #expect(third.probe() == .nothing)

        // Closing one frees a slot: the waiting connection is then accepted and answered.
        first.close()
        third.setReceiveTimeout(.seconds(5))
        let response = try third.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText == "GET /three")
        #expect(try second.exchange("GET", "/two-again").status == 200)
    }

    /// A client at its own limit has any further connection closed at once, while the server
    /// still has room for others; closing one of its connections lets it in again.
    @Test func aClientOverItsOwnLimitIsTurnedAwayAtOnce() throws {
        let server = try startTestServer {
            $0.connectionLimit = 16
            $0.connectionsPerClient = 2
        }
        defer { server.stop() }
        let (first, second) = try twoAcceptedConnections(to: server)
        // Open until the end: the client stays at its limit with `first` alone closed.
        defer { second.close() }

        let third = try LoopbackConnection(port: server.port)
        try? third.sendRequest("GET", "/three")
        #expect(third.waitForClose())

        first.close()
        var answered: Int? = nil
        // The server notices the closed connection in its own loop: try a few times.
        for _ in 0..<50 where answered == nil {
            answered = try? LoopbackConnection(port: server.port).exchange("GET", "/four").status
            if answered == nil { usleep(20_000) }
        }
        #expect(answered == 200)
    }

    @Test func pathIsPercentDecoded() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        defer { server.stop() }

        let response = try LoopbackConnection(port: server.port).exchange("GET", "/v1/accounts/a%20b/transactions")

        #expect(response.bodyText == "GET /v1/accounts/a b/transactions")
    }

    @Test func manyConcurrentRequestsAreAllAnsweredCorrectly() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        let threads = 8
        let requestsPerThread = 200
        let failures = Mutex<[String]>([])
        let answered = Atomic<Int>(0)

        let finished = runOnThreads(threads) { thread in
            do {
                // Even threads reuse one keep-alive connection, odd threads connect per request.
                var connection = try LoopbackConnection(port: server.port)
                for index in 0..<requestsPerThread {
                    if thread % 2 == 1 && index > 0 { connection = try LoopbackConnection(port: server.port) }
                    let body = Array("thread \(thread) request \(index)".utf8)
                    let response = try connection.exchange("POST", "/echo", body: body)
                    if response.status == 200 && response.body == body {
                        answered.add(1, ordering: .relaxed)
                    } else {
                        failures.withLock { $0.append("\(thread)/\(index): \(response.status) \(response.bodyText)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        server.stop()

        #expect(finished)
        #expect(failures.withLock { $0 } == [])
        let answeredCount = answered.load(ordering: .relaxed)
        #expect(answeredCount == threads * requestsPerThread)
        #expect(handler.recorder.entries.count == threads * requestsPerThread)
    }

    @Test func stopLetsRequestsInFlightFinishThenRefusesConnections() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        let port = server.port
        let held = Mutex<Result<LoopbackResponse, LoopbackError>?>(nil)
        let stopped = DispatchSemaphore(value: 0)
        let drained = Atomic<Bool>(false)

        // A request the handler holds until the test releases it.
        let clientDone = DispatchSemaphore(value: 0)
        startThread {
            let result = Result { () throws(LoopbackError) in
                try LoopbackConnection(port: port, receiveTimeout: .seconds(15)).exchange("GET", "/hold")
            }
            held.withLock { $0 = result }
            clientDone.signal()
        }
        #expect(handler.entered.wait(seconds: 5))

        startThread {
            drained.store(server.stop(gracePeriod: .seconds(10)), ordering: .relaxed)
            stopped.signal()
        }

        // New connections are refused as soon as the stop has begun…
        #expect(waitForRefusal(port: port, within: .seconds(5)))
        // …while the held request keeps the stop from finishing.
        #expect(stopped.wait(timeout: .now()) == .timedOut)

        handler.release.signal()
        #expect(clientDone.wait(seconds: 10))
        #expect(stopped.wait(seconds: 10))

        let response = try #require(held.withLock { $0 }).get()
        #expect(response.status == 200)
        #expect(response.bodyText == "released")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        let allDrained = drained.load(ordering: .relaxed)
        #expect(allDrained)
        #expect(throws: LoopbackError.connectFailed(ECONNREFUSED)) { _ = try LoopbackConnection(port: port) }
        #expect(handler.recorder.entries.map(\.status) == [200])
    }

    @Test func stopDoesNotWaitForIdleKeepAliveConnectionsAndCanBeRepeated() throws {
        let server = try startTestServer()
        let port = server.port
        let idle = try LoopbackConnection(port: port)
        #expect(try idle.exchange("GET", "/").status == 200)

        let clock = ContinuousClock()
        let start = clock.now
        #expect(server.stop(gracePeriod: .seconds(10)))
        #expect(clock.now - start < .seconds(5))
        #expect(server.stop())

        #expect(idle.probe() == .closed)
        #expect(throws: LoopbackError.connectFailed(ECONNREFUSED)) { _ = try LoopbackConnection(port: port) }
    }

    @Test func accessLogHasOneEntryPerRequestWithItsStatusAndNoQuery() throws {
        let handler = TestHandler()
        let server = try startTestServer(handler)
        let connection = try LoopbackConnection(port: server.port)

        let ok = try connection.exchange("POST", "/echo?token=secret", body: Array("secret body".utf8))
        let missing = try connection.exchange("GET", "/status/404?token=secret")
        // Headers only: the server answers 413 without reading a body, then closes.
        let oversize = try LoopbackConnection(port: server.port)
        let length = server.configuration.maximumBodyBytes + 1
        try oversize.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n")
        let tooLarge = try oversize.readResponse()
        server.stop()  // the log runs after each response is sent; stop waits for it

        #expect([ok.status, missing.status, tooLarge.status] == [200, 404, 413])
        let entries = handler.recorder.entries
        #expect(entries.count == 3)
        let byStatus = Dictionary(grouping: entries, by: \.status)
        let echo = try #require(byStatus[200]?.first)
        #expect(echo.method == "POST")
        #expect(echo.path == "/echo")
        #expect(echo.responseBytes == "secret body".utf8.count)
        #expect(echo.requestBytes == "secret body".utf8.count)
        #expect(echo.remoteAddress == "127.0.0.1")
        #expect(echo.handled)
        #expect(echo.completed)
        let notFound = try #require(byStatus[404]?.first)
        #expect(notFound.path == "/status/404")
        #expect(notFound.responseBytes == missing.body.count)
        let refused = try #require(byStatus[413]?.first)
        #expect(!refused.handled)
        #expect(refused.requestBytes == 0)
        #expect(refused.responseBytes == tooLarge.body.count)
        for entry in entries {
            #expect(!"\(entry)".contains("secret"))
        }
    }

    @Test func invalidResponseFromTheHandlerBecomesAGeneric500() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(listenAddress: try ListenAddress(parsing: "127.0.0.1:0"))
        ) { request in
            if request.path == "/status" { return HTTPResponse(status: 42, body: Array("secret".utf8)) }
            return HTTPResponse(
                status: 200, headers: ["X-Injected": "a\r\nSet-Cookie: stolen"], body: Array("secret detail".utf8))
        }
        defer { server.stop() }

        for path in ["/header", "/status"] {
            let response = try LoopbackConnection(port: server.port).exchange("GET", path)
            #expect(response.status == 500)
            #expect(response.bodyText == #"{"error":"internal_error","message":"internal error"}"#)
            #expect(response.headers["Set-Cookie"] == nil)
        }
    }

    @Test func handlerFramingHeadersAreReplacedByTheServers() throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(listenAddress: try ListenAddress(parsing: "localhost:0"))
        ) { _ in
            HTTPResponse(
                status: 201, headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "X-Kept": "yes"],
                body: Array("four".utf8))
        }
        defer { server.stop() }

        let response = try LoopbackConnection(port: server.port).exchange("GET", "/")

        #expect(response.status == 201)
        #expect(response.bodyText == "four")
        #expect(response.headers["Content-Length"] == "4")
        #expect(response.headers["Transfer-Encoding"] == nil)
        #expect(response.headers["X-Kept"] == "yes")
    }

    @Test func headRequestGetsHeadersWithoutBody() throws {
        let server = try startTestServer()
        defer { server.stop() }
        let connection = try LoopbackConnection(port: server.port)

        try connection.sendRequest("HEAD", "/anything")
        // The Content-Length describes the GET body, so read only the head here.
        try connection.send("GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = try connection.readResponseHead()
        let next = try connection.readResponse()

        #expect(head.status == 200)
        #expect(next.bodyText == "GET /next")
    }

    /// Retries connecting until the kernel refuses (the stop has shut the listen socket), at most
    /// `within`; connections that still succeed are closed at once, and a handshake reset while
    /// the socket leaves the listening state counts as not refused yet.
    private func waitForRefusal(port: UInt16, within limit: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            do {
                _ = try LoopbackConnection(port: port)
            } catch .connectFailed(ECONNREFUSED) {
                return true
            } catch .connectFailed(ECONNRESET) {
                continue
            } catch {
                return false
            }
        }
        return false
    }
}
