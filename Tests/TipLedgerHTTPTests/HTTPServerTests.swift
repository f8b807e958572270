// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import Testing
import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Live: a server on a loopback port chosen by the kernel, with the default configuration,
/// driven byte by byte: what a request carries to the handler, bodies and their limit, and what
/// goes back. (Refusals, deadlines, limits and stopping have suites of their own.)
@Suite final class HTTPServerTests: Sendable {
    let live: LiveTestServer

    init() throws {
        live = try LiveTestServer()
    }

    deinit {
        live.stop()
    }

    @Test func portZeroReportsTheBoundPort() throws {
        #expect(live.port != 0)
        let response = try live.connect().exchange("GET", "/")
        #expect(response.status == 200)
    }

    @Test func bindingABusyPortFailsWithItsErrno() throws {
        let busy = HTTPServerConfiguration(listenAddress: try ListenAddress(host: "127.0.0.1", port: live.port))
        #expect(throws: HTTPServerError.cannotListen(address: "127.0.0.1:\(live.port)", errno: EADDRINUSE)) {
            _ = try HTTPServer(configuration: busy) { _ in .text("unreachable") }
        }
    }

    @Test func getRoundTripCarriesMethodPathAndRemoteAddress() throws {
        let response = try live.connect().exchange("GET", "/v1/report")

        #expect(response.status == 200)
        #expect(response.bodyText == "GET /v1/report")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        let request = try #require(live.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/report")
        #expect(request.body.isEmpty)
        #expect(request.remoteAddress == "127.0.0.1")
    }

    @Test func postBodyIsEchoedByteForByte() throws {
        let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }  // includes NUL and high bytes

        let response = try live.connect().exchange("POST", "/echo", body: body)

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
        ("/v1/accounts/a%20b/transactions", "/v1/accounts/a b/transactions"),
    ])
    func aPathIsDecodedUnlessItHoldsANulOrASlash(_ sent: String, _ seen: String) throws {
        let response = try live.connect().exchange("GET", sent + "?q=%00")

        #expect(response.bodyText == "GET \(seen)")
        let request = try #require(live.requests.first)
        #expect(request.path == seen)
        #expect(request.query["q"] == "%00")
    }

    @Test func queryParametersAreDecodedAndKeptApartFromThePath() throws {
        let target = "/v1/report?by=product&name=tip%20jar&by=day&flag&empty=&slash=a%2Fb&plus=a+b"
        let response = try live.connect().exchange("GET", target)

        #expect(response.bodyText == "GET /v1/report")
        let query = try #require(live.requests.first).query
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
        _ = try live.connect().exchange(
            "GET", "/", headers: [("Authorization", "Bearer t0ken"), ("X-Tip", "one"), ("x-tip", "two")])

        let headers = try #require(live.requests.first).headers
        #expect(headers["authorization"] == "Bearer t0ken")
        #expect(headers["AUTHORIZATION"] == "Bearer t0ken")
        #expect(headers.values(for: "X-TIP") == ["one", "two"])
        #expect(headers["host"] == "127.0.0.1")
        #expect(headers["x-absent"] == nil)
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: live.configuration.maximumBodyBytes)

        let response = try live.connect().exchange("POST", "/echo", body: body)

        #expect(response.status == 200)
        #expect(response.body == body)
    }

    @Test func declaredOversizeBodyIsRefusedBeforeItIsSent() throws {
        let connection = try live.connect()

        // Only the headers: the server must answer without waiting for the body.
        let length = live.configuration.maximumBodyBytes + 1
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 413)
        #expect(response.bodyText.hasPrefix(#"{"error":"body_too_large","message":"#))
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(connection.waitForClose())
        #expect(live.requests.isEmpty)
    }

    @Test func expectContinueWithOversizeBodyGets413InsteadOfContinue() throws {
        let connection = try live.connect()

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\nExpect: 100-continue\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 413)
        #expect(connection.waitForClose())
        #expect(live.requests.isEmpty)
    }

    @Test func expectContinueWithSmallBodyGetsContinueThenTheAnswer() throws {
        let connection = try live.connect()

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
        let connection = try live.connect()

        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 8 * 1024)
        for _ in 0..<9 {  // 72 KiB in all
            try connection.send(Array("2000\r\n".utf8) + chunk + Array("\r\n".utf8))
        }
        try connection.send("0\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 413)
        #expect(response.bodyText.contains("body_too_large"))
        #expect(live.requests.isEmpty)
    }

    /// The coding's name is compared without regard to case (RFC 9112 section 7).
    @Test(arguments: ["chunked", "Chunked", "CHUNKED"])
    func chunkedBodyWithinTheLimitIsReassembled(_ coding: String) throws {
        let connection = try live.connect()

        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: \(coding)\r\n\r\n")
        try connection.send("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 200)
        #expect(response.bodyText == "hello world")
    }

    @Test func endlessChunkedBodyIsCutOffWithoutAnAnswer() throws {
        let connection = try live.connect()

        // 16 MiB, far past the limit plus the 1 MiB the server reads and discards before it
        // gives up: a send fails once the server has closed, or the close is seen afterwards.
        try connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk =
            Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "z"), count: 64 * 1024) + Array("\r\n".utf8)
        for _ in 0..<256 {
            do { try connection.send(chunk) } catch { break }
        }

        #expect(connection.probe() == .closed)
        #expect(live.requests.isEmpty)
    }

    @Test func manyConcurrentRequestsAreAllAnsweredCorrectly() throws {
        let threads = 8
        let requestsPerThread = 200
        let failures = Mutex<[String]>([])
        let answered = Atomic<Int>(0)
        let live = live

        let finished = runOnThreads(threads) { thread in
            do {
                // Even threads reuse one keep-alive connection, odd threads connect per request.
                var connection = try live.connect()
                for index in 0..<requestsPerThread {
                    if thread % 2 == 1 && index > 0 { connection = try live.connect() }
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
        live.stop()

        #expect(finished)
        #expect(failures.withLock { $0 } == [])
        let answeredCount = answered.load(ordering: .relaxed)
        #expect(answeredCount == threads * requestsPerThread)
        #expect(live.entries.count == threads * requestsPerThread)
    }

    @Test func accessLogHasOneEntryPerRequestWithItsStatusAndNoQuery() throws {
        let connection = try live.connect()

        let ok = try connection.exchange("POST", "/echo?token=secret", body: Array("secret body".utf8))
        let missing = try connection.exchange("GET", "/status/404?token=secret")
        // Headers only: the server answers 413 without reading a body, then closes.
        let oversize = try live.connect()
        let length = live.configuration.maximumBodyBytes + 1
        try oversize.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n")
        let tooLarge = try oversize.readResponse()
        live.stop()  // the log runs after each response is sent; stop waits for it

        #expect([ok.status, missing.status, tooLarge.status] == [200, 404, 413])
        let entries = live.entries
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

    @Test func headRequestGetsHeadersWithoutBody() throws {
        let connection = try live.connect()

        try connection.sendRequest("HEAD", "/anything")
        // The Content-Length describes the GET body, so read only the head here.
        try connection.send("GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = try connection.readResponseHead()
        let next = try connection.readResponse()

        #expect(head.status == 200)
        #expect(next.bodyText == "GET /next")
    }

    /// Servers of their own: the handler is the test's.
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
}
