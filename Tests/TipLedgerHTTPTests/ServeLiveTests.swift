// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

#if canImport(Glibc)
    import Glibc
#endif

/// The real `tipledger serve` binary on a loopback port, driven by the raw-socket client. One
/// service at a time: each test starts its own, and the load test wants both cores.
@Suite(.serialized) struct ServeLiveTests {
    static let account = ServiceHarness.account
    static let bearer = [("Authorization", "Bearer \(LiveService.apiToken)")]

    @Test func servedRequestsReachTheLedgerAndTheAccessLog() throws {
        let service = try LiveService()
        let connection = try service.connect()
        var requests = 0
        func exchange(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws
            -> LoopbackResponse
        {
            requests += 1
            return try connection.exchange(method, target, headers: headers, body: Array(body.utf8))
        }
        let tip = try TestChains.transaction(id: "2000000000000501", price: 990)
        let other = try TestChains.transaction(id: "2000000000000502", price: 1990)
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(501), signedDate: TestChains.referenceMilliseconds + 3_600_000,
            around: tip)
        let test = try TestChains.notification(type: "TEST", uuid: TestChains.uuid(502))
        var forged = TestJWS.signature(of: test)
        forged[5] ^= 0x10

        let recorded = try exchange("POST", "/v1/transactions", body: tip)
        let duplicate = try exchange("POST", "/v1/transactions", body: tip)
        let wrapped = try exchange("POST", "/v1/transactions", body: #"{"signedTransaction":"\#(other)"}"#)
        let applied = try exchange("POST", "/v1/notifications", body: WebhookBody.wrapping(refund))
        let again = try exchange("POST", "/v1/notifications", body: WebhookBody.wrapping(refund))
        let acknowledged = try exchange("POST", "/v1/notifications", body: WebhookBody.wrapping(test))
        let badNotification = try exchange(
            "POST", "/v1/notifications", body: WebhookBody.wrapping(TestJWS.replacingSignature(of: test, with: forged)))
        let badTransaction = try exchange("POST", "/v1/transactions", body: "eyJhbGciOiJub25lIn0.e30.")
        let health = try exchange("GET", "/healthz")
        let missing = try exchange("GET", "/v1/nothing-here")
        let wrongMethod = try exchange("GET", "/v1/notifications")
        let restore = try exchange("GET", "/v1/accounts/\(Self.account)/transactions?all=true", headers: Self.bearer)
        let unauthorized = try exchange("GET", "/v1/accounts/\(Self.account)/transactions")
        let report = try exchange("GET", "/v1/report?by=currency&commission=15%25", headers: Self.bearer)
        // HEAD: the GET's head without its body; the next response on the connection proves no
        // body bytes were sent.
        requests += 2
        try connection.sendRequest("HEAD", "/v1/report?by=currency&commission=15%25", headers: Self.bearer)
        let head = try connection.readResponseHead()
        let afterHead = try connection.exchange("GET", "/healthz")
        let healthyWhileServing = try service.healthStatus()
        requests += 1

        #expect(try jsonObject(recorded.body)["outcome"] as? String == "recorded")
        #expect(try jsonObject(duplicate.body)["outcome"] as? String == "duplicate")
        #expect(try jsonObject(wrapped.body)["outcome"] as? String == "recorded")
        #expect(try jsonObject(applied.body)["outcome"] as? String == "applied")
        #expect(try jsonObject(again.body)["outcome"] as? String == "duplicate")
        #expect(try jsonObject(acknowledged.body)["outcome"] as? String == "recorded")
        let statuses = [recorded, duplicate, wrapped, applied, again, acknowledged].map(\.status)
        #expect(statuses == [200, 200, 200, 200, 200, 200])
        #expect(badNotification.status == 400)
        #expect(try jsonObject(badNotification.body)["error"] as? String == "bad_signature")
        #expect(badTransaction.status == 422)
        #expect(try jsonObject(badTransaction.body)["error"] as? String == "unsupported_algorithm")
        #expect(health.status == 200)
        #expect(health.bodyText == #"{"status":"ok"}"#)
        #expect(missing.status == 404)
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "POST")
        #expect(restore.status == 200)
        #expect(unauthorized.status == 401)
        #expect(unauthorized.headers["WWW-Authenticate"] == #"Bearer realm="tipledger""#)
        #expect(report.status == 200)
        #expect(try jsonObject(report.body)["commissionRate"] as? Double == 0.15)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == String(report.body.count))
        #expect(head.headers["Content-Type"] == "application/json")
        #expect(afterHead.status == 200)
        #expect(afterHead.bodyText == #"{"status":"ok"}"#)
        #expect(healthyWhileServing == 0)

        #expect(service.stop(SIGTERM) == 0)
        #expect(service.child.errors.text.contains("received signal 15"))
        // Not "stopped; some requests did not finish in time": nothing kept the drain waiting.
        #expect(service.child.errors.lines.last == "stopped")
        #expect(try service.healthStatus() == 1)
        #expect(throws: LoopbackError.connectFailed(ECONNREFUSED)) { _ = try service.connect() }

        // The ledger on disk holds exactly what the answers said.
        let ledger = try service.openLedger()
        let tips = try ledger.restore(account: Self.account, includeAll: true).transactions
        #expect(tips.map(\.transactionId) == ["2000000000000501", "2000000000000502"])
        #expect(tips.map(\.state) == [.refunded, .finished])
        #expect(
            try ledger.texts("SELECT notification_uuid FROM notifications ORDER BY 1") == [
                TestChains.uuid(501), TestChains.uuid(502),
            ])
        // Two transactions, two notifications and the REFUND's newer copy of the first transaction.
        #expect(try ledger.integer("SELECT count(*) FROM evidence") == 5)

        // The service's restore is the command line's, byte for byte.
        let command = try service.runCommand(["restore", "--account", Self.account, "--all", "--format", "json"])
        #expect(command.status == 0)
        #expect(command.output.trimmingCharacters(in: .newlines) == restore.bodyText)

        // One access-log line per request, in order, naming no token, JWS or account.
        let log = service.accessLog
        #expect(log.count == requests)
        #expect(log.map(\.status) == statuses + [400, 422, 200, 404, 405, 200, 401, 200, 200, 200, 200])
        #expect(log.first?.method == "POST")
        #expect(log.first?.path == "/v1/transactions")
        #expect(log.contains { $0.method == "HEAD" && $0.path == "/v1/report" })
        #expect(log.contains { $0.path == "/v1/accounts/:account/transactions" })
        let errors = service.child.errors.text
        for secret in [LiveService.apiToken, Self.account, "eyJ", String(tip.prefix(40)), "commission"] {
            #expect(!errors.contains(secret), "standard error shows \(secret)")
        }
    }

    @Test func accessLogLinesCannotBeForgedThroughTheRequest() throws {
        let service = try LiveService()
        let connection = try service.connect()
        let forgedLine = "2026-01-01T00:00:00.000Z 127.0.0.1 GET /forged 200 0B 0ms"
        // Percent-encoded in the target, decoded by the server before it is logged.
        let targets = [
            "/v1/x%0A" + forgedLine.replacingOccurrences(of: " ", with: "%20"),
            "/v1/%1B%5B31mred%1B%5B0m", "/v1/caf%C3%A9%20au%20lait%0D", "/v1/a%0Ab",
        ]

        let statuses = try targets.map { try connection.exchange("GET", $0).status }
        let oddMethod = try connection.exchange("G\u{1B}[2JT", "/healthz").status
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")

        #expect(statuses == [404, 404, 404, 404])
        // A control character in the method is refused with the request line; the refusal's
        // log line escapes it all the same.
        #expect(oddMethod == 400)
        let errors = service.child.errors.text
        #expect(!errors.contains("\u{1B}"))
        #expect(!errors.contains("\r"))
        #expect(!errors.contains("\n2026-01-01T00:00:00.000Z"))
        // The serving line, one line per request, and the two lines of the stop: nothing else.
        let log = service.accessLog
        #expect(service.child.errors.lines.count == 1 + targets.count + 1 + 2)
        #expect(log.count == targets.count + 1)
        #expect(
            log.map(\.path) == [
                // A segment as long as an API token is not logged at all; a short one, escaped.
                "/v1/:long/:long", #"/v1/\u{1B}[31mred\u{1B}[0m"#,
                #"/v1/café\u{20}au\u{20}lait\u{D}"#, #"/v1/a\u{A}b"#, "/healthz",
            ])
        #expect(log.last?.method == #"G\u{1B}[2JT"#)
    }

    @Test func listenAddressComesFromTheEnvironmentForServeAndHealth() throws {
        let service = try LiveService(environment: ["TIPLEDGER_LISTEN": "127.0.0.1:0"], listen: nil)
        let environment = LiveService.environment(["TIPLEDGER_LISTEN": "127.0.0.1:\(service.port)"])

        let healthy = try TipledgerProcess.run(["health"], environment: environment)
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")
        let unhealthy = try TipledgerProcess.run(["health"], environment: environment)

        #expect(healthy.status == 0)
        #expect(healthy.output == "healthy\n")
        #expect(unhealthy.status == 1)
        #expect(unhealthy.output.hasPrefix("unhealthy"))
    }

    /// Where the service's API token comes from.
    enum TokenSource: String, CaseIterable, Sendable {
        case none, environment, file, fileWithCRLF, fileOverEnvironment

        /// Starts a service configured this way; the right token is `LiveService.apiToken`.
        func start() throws -> LiveService {
            let directory = try TemporaryDirectory()
            let file = directory.file("api-token")
            switch self {
            case .none:
                return try LiveService(environment: [:], directory: directory)
            case .environment:
                return try LiveService(environment: ["TIPLEDGER_API_TOKEN": LiveService.apiToken], directory: directory)
            case .file, .fileWithCRLF, .fileOverEnvironment:
                let ending = self == .fileWithCRLF ? "\r\n" : "\n"
                try Data((LiveService.apiToken + ending).utf8).write(to: URL(fileURLWithPath: file))
                // Private but for `.file`, which `serve` warns about.
                try FileManager.default.setAttributes(
                    [.posixPermissions: self == .file ? 0o644 : 0o600], ofItemAtPath: file)
                let environment =
                    self == .fileOverEnvironment ? ["TIPLEDGER_API_TOKEN": "environment-token-not-used-0000"] : [:]
                return try LiveService(
                    environment: environment, arguments: ["--api-token-file", file], directory: directory)
            }
        }
    }

    @Test(arguments: TokenSource.allCases)
    func queryRoutesOpenOnlyToTheConfiguredToken(_ source: TokenSource) throws {
        let service = try source.start()
        let connection = try service.connect()
        let paths = ["/v1/accounts/\(Self.account)/transactions", "/v1/report"]
        let authorizations: [[(String, String)]] = [
            [], [("Authorization", "Bearer wrong-token-000000000000000")],
            [("Authorization", "Bearer environment-token-not-used-0000")], Self.bearer,
        ]

        var statuses: [Int] = []
        for path in paths {
            for headers in authorizations {
                statuses.append(try connection.exchange("GET", path, headers: headers).status)
            }
        }
        // SIGINT stops the service like SIGTERM.
        let exit = service.stop(SIGINT)

        let expected = source == .none ? [404, 404, 404, 404] : [401, 401, 401, 200]
        #expect(statuses == expected + expected)
        #expect(exit == 0)
        #expect(service.child.errors.text.contains("received signal 2"))
        #expect(!service.child.errors.text.contains(LiveService.apiToken))
        // Serving without a token says what that leaves out.
        let notice =
            "no API token: restore and report answer 404; give one with --api-token-file or TIPLEDGER_API_TOKEN"
        #expect(service.child.errors.lines.contains(notice) == (source == .none), "\(service.child.errors.text)")
        #expect(
            service.child.errors.text.contains("hint: other users may read the API token file") == (source == .file),
            "\(service.child.errors.text)")
    }

    @Test(arguments: [
        "short-token", "a token with spaces inside", "a-token-with-ünïcödé-letters", "a-token-with-a\ttab",
    ])
    func unusableTokenStopsTheServiceFromStarting(token: String) throws {
        let directory = try TemporaryDirectory()

        let result = try TipledgerProcess.run(
            ["serve", "--db", directory.file("ledger.sqlite"), "--listen", "127.0.0.1:0"],
            environment: LiveService.environment(["TIPLEDGER_API_TOKEN": token]))

        #expect(result.status == 64)
        #expect(result.errors.hasPrefix("error: the API token must be at least 16 printable ASCII characters"))
        #expect(!result.errors.contains("serving"))
        #expect(!result.errors.contains(token))
        #expect(
            !FileManager.default.fileExists(atPath: directory.file("ledger.sqlite")), "a bad setting creates no ledger")
    }

    /// A token file with a byte that is not UTF-8 is refused: decoded with a replacement
    /// character, it would accept a header with any other such byte in its place.
    @Test func aTokenFileThatIsNotUTF8StopsTheServiceFromStarting() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("token")
        try Data(Array("0123456789abcdef".utf8) + [0xff]).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)

        let result = try TipledgerProcess.run(
            ["serve", "--db", directory.file("ledger.sqlite"), "--listen", "127.0.0.1:0", "--api-token-file", file],
            environment: LiveService.environment())

        #expect(result.status == 64)
        #expect(result.errors.hasPrefix("error: the API token must be at least 16 printable ASCII characters"))
        #expect(!result.errors.contains("serving"))
    }

    @Test func busyPortStopsTheServiceFromStarting() throws {
        let first = try LiveService()
        let directory = try TemporaryDirectory()

        let result = try TipledgerProcess.run(
            ["serve", "--db", directory.file("ledger.sqlite"), "--listen", "127.0.0.1:\(first.port)"],
            environment: LiveService.environment())

        #expect(result.status == 74)
        #expect(result.errors.hasPrefix("error: cannot serve on 127.0.0.1:\(first.port)"))
        #expect(first.stop() == 0)
    }

    /// A body over the input limit (the largest token and 1 KiB around it) gets 413.
    @Test func bodyOverTheInputLimitIsRefusedWith413() throws {
        let service = try LiveService()
        let limit = VerificationPolicy.maximumInputBytes

        // A declared length over the limit is refused before the body is sent.
        let declared = try service.connect()
        try declared.send("POST /v1/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(limit + 1)\r\n\r\n")
        let overNotification = try declared.readResponse()
        // A chunked body is counted as it arrives: 72 KiB in 8 KiB chunks.
        let chunked = try service.connect()
        try chunked.send("POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<9 {
            try chunked.send(
                Array("2000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "A"), count: 8192) + Array("\r\n".utf8))
        }
        try chunked.send("0\r\n\r\n")
        let overTransaction = try chunked.readResponse()
        let atLimit = try service.connect().exchange(
            "POST", "/v1/transactions", body: [UInt8](repeating: UInt8(ascii: "A"), count: limit))
        let afterwards = try service.connect().exchange("GET", "/healthz")
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")

        #expect(overNotification.status == 413)
        #expect(try jsonObject(overNotification.body)["error"] as? String == "body_too_large")
        #expect(overTransaction.status == 413)
        // At the limit the body reaches the router, which finds the token too large.
        #expect(atLimit.status == 422)
        #expect(try jsonObject(atLimit.body)["error"] as? String == "too_large")
        #expect(afterwards.status == 200)
        // Four connections, two worker threads: the lines may come in any order.
        #expect(service.accessLog.map(\.status).sorted() == [200, 413, 413, 422])
        #expect(try service.openLedger().integer("SELECT count(*) FROM evidence") == 0)
    }

    @Test func metricsCountersMoveWithTheRequests() throws {
        let service = try LiveService()
        let connection = try service.connect()
        func metrics() throws -> PrometheusText {
            let response = try connection.exchange("GET", "/metrics")
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4")
            return try PrometheusText(HTTPResponse(status: response.status, body: response.body))
        }
        let transaction = try TestChains.transaction(id: "2000000000000531")

        let before = try metrics()
        _ = try connection.exchange("POST", "/v1/transactions", body: Array(transaction.utf8))
        _ = try connection.exchange("POST", "/v1/transactions", body: Array("junk".utf8))
        let test = try TestChains.notification(type: "TEST", uuid: TestChains.uuid(531))
        _ = try connection.exchange("POST", "/v1/notifications", body: Array(WebhookBody.wrapping(test).utf8))
        _ = try connection.exchange("GET", "/missing")
        // Answered by the transport, without the service: ambiguous framing, then an oversize body.
        let ambiguous = try service.connect()
        try ambiguous.send(
            "POST /v1/transactions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
                + "Transfer-Encoding: chunked\r\n\r\nhello")
        #expect(try ambiguous.readResponse().status == 400)
        let oversize = try service.connect()
        try oversize.send("POST /v1/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 9999999\r\n\r\n")
        #expect(try oversize.readResponse().status == 413)
        // The transport counts its own answers once a request is complete, which libmicrohttpd
        // reports before it closes the connection: the close says they are counted.
        #expect(ambiguous.waitForClose())
        #expect(oversize.waitForClose())
        let after = try metrics()
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")

        let requests = "tipledger_http_requests_total"
        #expect(before[requests, ["route": "transactions", "status": "200"]] == nil)
        #expect(after[requests, ["route": "transactions", "status": "200"]] == 1)
        #expect(after[requests, ["route": "transactions", "status": "422"]] == 1)
        #expect(after[requests, ["route": "notifications", "status": "200"]] == 1)
        #expect(after[requests, ["route": "unknown", "status": "404"]] == 1)
        #expect(after[requests, ["route": "transactions", "status": "400"]] == 1)
        #expect(after[requests, ["route": "notifications", "status": "413"]] == 1)
        #expect(after[requests, ["route": "metrics", "status": "200"]] == 1)
        #expect(after["tipledger_verifications_total", ["outcome": "ok"]] == 2)
        #expect(after["tipledger_verifications_total", ["outcome": "malformed_jws"]] == 1)
        #expect(after["tipledger_notifications_total", ["type": "TEST"]] == 1)
        // Two handled, one refused by the transport.
        #expect(after["tipledger_http_request_duration_seconds_count", ["route": "transactions"]] == 3)
        #expect(after.buckets("tipledger_http_request_duration_seconds", route: "transactions").last?.count == 3)
    }

    @Test func keysMadeByTestkitAreTrustedEndToEnd() throws {
        let directory = try TemporaryDirectory()
        let keys = directory.file("keys")
        let environment = LiveService.environment()
        let initialized = try TipledgerProcess.run(["testkit", "init", "--out", keys], environment: environment)
        #expect(initialized.status == 0)
        let transaction = try TipledgerProcess.run(
            [
                "testkit", "transaction", "--keys", keys, "--transaction-id", "2000000000000541", "--account",
                Self.account, "--price", "2.99",
            ], environment: environment)
        let jws = transaction.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let notification = try TipledgerProcess.run(
            ["testkit", "notification", "--keys", keys, "--type", "REFUND", "--transaction", jws],
            environment: environment)
        #expect(transaction.status == 0)
        #expect(notification.status == 0)

        let service = try LiveService(directory: directory, trust: ["--keys", keys])
        let connection = try service.connect()
        let recorded = try connection.exchange("POST", "/v1/transactions", body: Array(jws.utf8))
        let refunded = try connection.exchange(
            "POST", "/v1/notifications",
            body: Array(notification.output.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        // The standard test PKI is not trusted by this service.
        let foreign = try connection.exchange(
            "POST", "/v1/transactions", body: Array(try TestChains.transaction(id: "2000000000000542").utf8))
        let stopped = service.stop()
        #expect(stopped == 0, "\(service.diagnostics)")

        #expect(recorded.status == 200)
        #expect(try jsonObject(recorded.body)["outcome"] as? String == "recorded")
        #expect(refunded.status == 200)
        #expect(try jsonObject(refunded.body)["state"] as? String == "refunded")
        #expect(foreign.status == 422)
        #expect(try jsonObject(foreign.body)["error"] as? String == "untrusted_chain")
        let tips = try service.openLedger().restore(account: Self.account, includeAll: true).transactions
        #expect(tips.map(\.transactionId) == ["2000000000000541"])
        #expect(tips.first?.priceMilli == 2990)
        #expect(tips.first?.state == .refunded)
    }
}
