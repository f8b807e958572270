// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerHTTP
internal import TipLedgerTestSupport

/// What the fake App Store Server API answers a request that passed its checks.
public enum FakeReply: Sendable {
    /// A JSON body given as text.
    case json(String, status: Int = 200)
    /// One of the response bodies of Apple's library tests (`apple-library/models/NAME`).
    case fixture(String, status: Int = 200)
    /// Apple's error body `{"errorCode": code, "errorMessage": message}`.
    case appleError(status: Int, code: Int64, message: String)
    /// 429 with Apple's `RateLimitExceededError` body (`apiTooManyRequestsException.json`) and,
    /// when given, this `Retry-After`.
    case rateLimited(retryAfter: String?)
    /// A status with no body (202 for a consumption answer, 503, …).
    case empty(status: Int)
    /// Any bytes: a malformed or oversized body.
    case bytes([UInt8], status: Int = 200, contentType: String = "application/json")
    /// No answer until the fake releases its stalled requests or stops, or `upTo` passes: past a
    /// client's timeout. The server's worker waits meanwhile, and with it any connection the
    /// server hands that worker, so a client that goes on after a timeout wants a bound.
    case stall(upTo: Duration = .seconds(60))

    /// The HTTP answer; `stall` is handled by the server.
    var response: HTTPResponse {
        switch self {
        case .json(let text, let status):
            return .json(status: status, body: Array(text.utf8))
        case .fixture(let name, let status):
            guard let bytes = try? Fixtures.bytes("apple-library/models/\(name)") else {
                return .error(status: 500, code: "fixture_missing", message: name)
            }
            return .json(status: status, body: bytes)
        case .appleError(let status, let code, let message):
            return .json(status: status) { writer in
                writer.object { body in
                    body.field("errorCode", code)
                    body.field("errorMessage", message)
                }
            }
        case .rateLimited(let retryAfter):
            var response = FakeReply.fixture("apiTooManyRequestsException.json", status: 429).response
            if let retryAfter { response.headers.set("Retry-After", retryAfter) }
            return response
        case .empty(let status):
            return HTTPResponse(status: status)
        case .bytes(let bytes, let status, let contentType):
            return HTTPResponse(status: status, headers: ["Content-Type": contentType], body: bytes)
        case .stall:
            return HTTPResponse(status: 503)
        }
    }
}
