// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
internal import FuzzSupport
internal import Synchronization
internal import TipLedgerCore
internal import TipLedgerHTTP
internal import TipLedgerStore

/// The HTTP service's request handling: `TipLedgerService.handle`, a request in, a response
/// out, on an in-memory ledger.
///
/// The input is a request as text: `METHOD TARGET`, a line per header field `Name: value`, an
/// empty line and the body. The target is the path and `?`-separated query of `name=value`
/// pairs joined by `&`, taken as already percent-decoded (as the router receives them). A
/// body that starts with a NUL byte is signed (`SignedInput`), and for `/v1/notifications`
/// wrapped as the App Store posts it.
///
/// Properties: no answer is a 5xx (the ledger is always there) or logs a ledger failure; a JSON
/// answer is an object, an error `{"error","message"}`; no header field could break the
/// response's framing; no SQL or SQLite text reaches a body unless the request carried it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzService(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let request = request(from: input)
    let (response, logged) = service.answer(request)
    Property.require(response.status >= 200 && response.status < 500, "answered \(response.status)")
    Property.require(logged.isEmpty, "logged \(logged)")
    for field in response.headers {
        Property.require(
            !field.name.isEmpty && field.name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
                && field.value.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7f || $0 == 0x09 },
            "a header field that breaks the framing: \(field)")
    }
    if response.headers["Content-Type"] == "application/json" {
        let body = FoundationJSON.value(response.body) as? [String: Any]
        Property.require(body != nil, "a JSON answer that is not an object")
        if response.status >= 400 {
            Property.require(body?["error"] is String && body?["message"] is String, "an error without code or message")
        }
    }
    let text = String(decoding: response.body, as: UTF8.self)
    let sent = String(decoding: input, as: UTF8.self)
    for marker in internalTextMarkers where text.contains(marker) {
        Property.require(sent.contains(marker), "the answer shows \"\(marker)\"")
    }
    return 0
}

/// Words of SQL and SQLite that no answer shows of itself.
private let internalTextMarkers = [
    "SELECT", "INSERT", "UPDATE ", "DELETE", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "sqlite", "SQLite",
    "no such table", "no such column", "constraint", "database is locked", ".swift", "Fatal",
]

/// The service and its ledger, started afresh every `ServiceUnderTest.restartEvery` requests so
/// the in-memory ledger stays small however long the fuzzer runs.
private let service = ServiceUnderTest()

private final class ServiceUnderTest: Sendable {
    static let restartEvery = 2000
    static let apiToken = "fuzz-token"

    private struct State {
        var service: TipLedgerService
        var answered = 0
    }

    private let state = Mutex<State>(State(service: ServiceUnderTest.start()))
    private let log = Mutex<[String]>([])

    private static func start() -> TipLedgerService {
        let clock = WallClock.fixed(AppleDate(wholeMilliseconds: TrustedChain.referenceMilliseconds))
        do {
            let ledger = try Ledger.open(path: ":memory:", clock: clock)
            return TipLedgerService(
                verifier: TrustedChain.shared.verifier(), ledger: ledger, apiToken: apiToken, clock: clock,
                log: { line in service.log.withLock { $0.append(line) } })
        } catch {
            preconditionFailure("cannot open an in-memory ledger: \(error)")
        }
    }

    /// The answer to `request`, and what the service logged meanwhile.
    func answer(_ request: HTTPRequest) -> (HTTPResponse, [String]) {
        let service = state.withLock { state in
            state.answered += 1
            if state.answered % ServiceUnderTest.restartEvery == 0 { state.service = ServiceUnderTest.start() }
            return state.service
        }
        let response = service.handle(request)
        let logged = log.withLock { logged in
            let lines = logged
            logged = []
            return lines
        }
        return (response, logged)
    }
}

/// The request `input` describes (see `fuzzService`).
private func request(from input: [UInt8]) -> HTTPRequest {
    let newline = UInt8(ascii: "\n")
    var lines: [ArraySlice<UInt8>] = []
    var rest = input[...]
    while let end = rest.firstIndex(of: newline) {
        let line = rest[..<end]
        rest = rest[(end + 1)...]
        if line.isEmpty && !lines.isEmpty { break }
        lines.append(line)
    }
    if lines.isEmpty {
        lines = [rest]
        rest = []
    }
    let first = text(lines[0])
    let method = String(first.prefix { $0 != " " })
    let target = first.drop { $0 != " " }.dropFirst()
    let path = String(target.prefix { $0 != "?" })
    let queryText = target.drop { $0 != "?" }.dropFirst()
    let query = HTTPQuery(
        queryText.isEmpty
            ? []
            : queryText.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                HTTPQuery.Item(
                    name: String(pair.prefix { $0 != "=" }), value: String(pair.drop { $0 != "=" }.dropFirst()))
            })
    let headers = HTTPHeaders(
        lines.dropFirst().map { line in
            let field = text(line)
            let value = field.drop { $0 != ":" }.dropFirst()
            return HTTPHeaders.Field(name: String(field.prefix { $0 != ":" }), value: String(value.drop { $0 == " " }))
        })
    var body = Array(rest)
    if body.first == 0 {
        let token = String(decoding: SignedInput.line(body), as: UTF8.self)
        body = Array((path == "/v1/notifications" ? WebhookBody.wrapping(token) : token).utf8)
    }
    return HTTPRequest(
        method: method, path: path, query: query, headers: headers, body: body, remoteAddress: "127.0.0.1")
}

/// A line of the request as libmicrohttpd hands it on: text, invalid UTF-8 repaired.
private func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
}
