// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// What a handler answers: a status, header fields and a body, copied to the client as they are.
///
/// The server adds `Content-Length` and `Date` itself and ignores a `Content-Length` or
/// `Transfer-Encoding` field set here. A status outside 200…599, or a header field whose name or
/// value could break the response framing (control characters, a colon in the name), makes the
/// server send a generic 500 instead, so a handler's mistake never reaches the wire half-written.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code (`200`, `404`, …); the reason phrase is the standard one.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is JSON already encoded.
    public static func json(status: Int = 200, body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A response whose JSON body `write` produces, for example
    /// `.json { $0.object { $0.field("outcome", "recorded") } }`.
    public static func json(status: Int = 200, _ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter()
        write(&writer)
        return json(status: status, body: writer.bytes)
    }

    /// A plain-text response (`text/plain; charset=utf-8` unless `contentType` says otherwise).
    public static func text(
        status: Int = 200, _ text: String, contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }

    /// The service's error shape, `{"error":"code","message":"..."}`.
    ///
    /// `code` is a stable snake_case name clients may branch on; `message` is for people and must
    /// not carry internal details (SQL, paths, stack traces) or request data such as tokens.
    public static func error(status: Int, code: String, message: String) -> HTTPResponse {
        json(status: status) { writer in
            writer.object { object in
                object.field("error", code)
                object.field("message", message)
            }
        }
    }

    /// One of the service's own errors, sent with the status its code stands for.
    public static func error(_ code: ServiceErrorCode, _ message: String) -> HTTPResponse {
        error(status: code.status, code: code.rawValue, message: message)
    }

    /// 503 `unavailable` with `Retry-After: 1`: the service cannot take the request now, and a
    /// client (the App Store among them) retries in a second.
    static func unavailable(_ message: String) -> HTTPResponse {
        var response = error(.unavailable, message)
        response.headers.set("Retry-After", "1")
        return response
    }

    /// The body decoded as UTF-8, invalid sequences replaced.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
