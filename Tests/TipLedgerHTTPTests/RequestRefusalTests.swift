// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// Live: a request a proxy in front could read otherwise than the server is refused with 400
/// and its connection closed, before the handler and without reading what follows as a request
/// (request smuggling); the well-formed requests next to each rule pass.
@Suite final class RequestRefusalTests: Sendable {
    let live: LiveTestServer

    init() throws {
        live = try LiveTestServer()
    }

    deinit {
        live.stop()
    }

    /// A refused request: its bytes, then a request that must never be served.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let why: String
        let request: String
        /// The start of the answer's message.
        let message: String

        static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

        /// A POST to /echo with `fields` after its Host field, and a five-byte body.
        static func post(_ why: String, fields: String, message: String = "") -> Refusal {
            Refusal(
                why: why, request: "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\nhello" + smuggled,
                message: message)
        }

        /// `line` as the request line of an HTTP/1.1 GET.
        static func line(_ line: String) -> Refusal {
            Refusal(
                why: "the request line \(line.debugDescription)",
                request: "\(line) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + smuggled, message: "the request line")
        }

        var testDescription: String { why }
    }

    /// Framing a proxy could read differently (RFC 9112 sections 2.2, 3.2, 5.1 and 6.3): the
    /// bytes after it must not be taken for a request. (A single malformed value such as "5, 6"
    /// libmicrohttpd refuses itself.) Whitespace before a colon would hide the field from
    /// libmicrohttpd's framing, which keeps it in the name.
    static let ambiguousFraming: [Refusal] =
        [
            "Content-Length: 5\r\nContent-Length: 6\r\n", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n", "Transfer-Encoding: identity\r\n",
            "Transfer-Encoding: chunked \r\n", "Content-Length : 5\r\n", "Content-Length\t: 5\r\n",
            "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n", "Host: elsewhere\r\nContent-Length: 5\r\n",
            "X-Bare: a\rb\r\nContent-Length: 5\r\n",
        ].map { Refusal.post("the framing \($0.debugDescription)", fields: $0) } + [
            // RFC 9112 section 6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing.
            Refusal(
                why: "Transfer-Encoding in HTTP/1.0",
                request: "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", message: ""
            )
        ]

    /// A byte no field value may hold (RFC 9110 section 5.5), NUL included, though
    /// libmicrohttpd hands over a value cut at its NUL: `Content-Length: 3\0 5` would read 3
    /// bytes and take the rest for a request where a proxy keeping the whole value read 5, and a
    /// token or coding hidden behind a NUL would pass.
    static let forbiddenFieldBytes: [Refusal] = [
        "Content-Length: 3\u{0} 5\r\n", "Transfer-Encoding: chunked\u{0}, gzip\r\n",
        "Authorization: Bearer live-token\u{0}junk\r\nContent-Length: 5\r\n",
        "Content-Length: 5\r\nX-Last: a\u{0}b\r\n", "Content-Length: 5\r\nX-Trailing: a\u{0}\r\n",
        "X-Only: \u{0}\r\nContent-Length: 5\r\n", "X-Control: a\u{1}b\r\nContent-Length: 5\r\n",
        "X-Escape: \u{1B}[2J\r\nContent-Length: 5\r\n", "X-Delete: a\u{7F}\r\nContent-Length: 5\r\n",
        "X-Folded: a\r\n b\r\nContent-Length: 5\r\n",
    ].map { Refusal.post("the fields \($0.debugDescription)", fields: $0, message: "a header field's") }

    /// A byte no request line may hold, as one in a field value: libmicrohttpd hands the method
    /// and target over cut at a NUL (`/metrics\0.css` would be routed as `/metrics`), and a
    /// proxy may split the line at a tab or another control.
    static let forbiddenRequestLineBytes: [Refusal] = [
        "GET /metrics\u{0}.css", "GET /echo?q=1\u{0}&r=2", "GET /echo\u{0}", "GET \u{0}/echo", "GE\u{0}T /echo",
        "GET /ec\u{1}ho", "GET /echo\tx", "GET /echo\rx", "GET /echo?q=\u{1B}[2J", "GET /echo\u{7F}",
        "G\u{1}T /echo",
    ].map(Refusal.line)

    @Test(arguments: ambiguousFraming + forbiddenFieldBytes + forbiddenRequestLineBytes)
    func aRequestAProxyCouldReadOtherwiseIsABadRequest(_ refusal: Refusal) throws {
        let connection = try live.connect()

        try connection.send(refusal.request)
        let response = try connection.readResponse()

        #expect(response.status == 400)
        #expect(response.bodyText.hasPrefix(#"{"error":"bad_request","message":"\#(refusal.message)"#))
        #expect(connection.waitForClose())
        live.stop()
        #expect(live.requests.isEmpty)
        #expect(live.entries.map { [$0.status, $0.handled ? 1 : 0] } == [[400, 0]])
    }

    /// What the request-line check must let through: percent-encoded controls (decoded, or
    /// left encoded for %00), bytes from 0x80 up, a space libmicrohttpd reads inside the target,
    /// spaces after the method, and an empty query. A target in absolute form reaches the
    /// handler as its path (RFC 9112 section 3.2.2).
    @Test(arguments: [
        ("GET /a%0Ab?q=%01&r=%00 HTTP/1.1", "/a\nb"), ("GET /café HTTP/1.1", "/café"), ("GET /a b HTTP/1.1", "/a b"),
        ("GET   /a HTTP/1.1", "/a"), ("GET /a? HTTP/1.1", "/a"), ("OPTIONS * HTTP/1.1", "*"),
        ("GET http://127.0.0.1:8080/v1/report?by=product HTTP/1.1", "/v1/report"),
        ("GET HTTPS://x/a/b HTTP/1.1", "/a/b"), ("GET http://x HTTP/1.1", "/"), ("GET http:/a HTTP/1.1", "http:/a"),
    ])
    func wellFormedRequestLinesPassTheCheck(_ line: String, _ path: String) throws {
        let connection = try live.connect()

        try connection.send("\(line)\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().status == 200)
        #expect(live.requests.map(\.path) == [path])
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
        let connection = try live.connect()

        try connection.send(requests)
        let statuses = try paths.map { _ in try connection.readResponse().status }

        #expect(statuses == paths.map { _ in 200 })
        #expect(live.requests.map(\.path) == paths)
    }

    /// RFC 9112 section 3.2: an HTTP/1.1 request without a Host field is a bad request; an
    /// HTTP/1.0 one may lack it.
    @Test func anHTTP11RequestWithoutHostIsABadRequest() throws {
        let without = try live.connect()
        try without.send("GET /echo HTTP/1.1\r\n\r\n")
        let refused = try without.readResponse()
        #expect(refused.status == 400)
        #expect(refused.bodyText == #"{"error":"bad_request","message":"an HTTP/1.1 request needs one Host field"}"#)

        let old = try live.connect()
        try old.send("GET /echo HTTP/1.0\r\n\r\n")
        #expect(try old.readResponse().status == 200)
        live.stop()
        #expect(live.requests.map(\.path) == ["/echo"])
    }

    @Test func aRepeatedContentLengthThatAgreesIsAccepted() throws {
        let connection = try live.connect()

        try connection.send(
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
        let response = try connection.readResponse()

        #expect(response.status == 200)
        #expect(response.bodyText == "hello")
    }
}
