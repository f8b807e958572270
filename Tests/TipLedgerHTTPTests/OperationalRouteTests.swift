// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Health, metrics, unknown paths, wrong methods and ledger failures, through the router.
@Suite struct OperationalRouteTests {
    @Test(arguments: ["GET", "HEAD"])
    func healthIsOKWhileTheLedgerAnswers(method: String) throws {
        let harness = try ServiceHarness()

        let response = harness.request(method, "/healthz")

        #expect(response.status == 200)
        #expect(response.bodyText == #"{"status":"ok"}"#)
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test(arguments: [
        "/", "/v1", "/v1/", "/v1/notifications/", "/v1/notifications/extra", "/v2/transactions", "/healthz/",
        "/HEALTHZ", "/v1/accounts/\(ServiceHarness.account)", "/v1/accounts/\(ServiceHarness.account)/tips",
        "/v1/accounts/\(ServiceHarness.account)/transactions/extra", "/metrics.txt", "//healthz",
    ])
    func unknownPathIsNotFound(path: String) throws {
        let harness = try ServiceHarness()

        for method in ["GET", "POST"] {
            let response = harness.request(method, path, headers: ["Authorization": "Bearer \(ServiceHarness.token)"])
            #expect(response.status == 404, "\(method) \(path)")
            #expect(response.bodyText == #"{"error":"not_found","message":"no such resource"}"#)
        }
    }

    @Test(arguments: [
        ("GET", "/v1/notifications", "POST"), ("PUT", "/v1/notifications", "POST"),
        ("HEAD", "/v1/transactions", "POST"), ("DELETE", "/v1/transactions", "POST"),
        ("POST", "/v1/accounts/\(ServiceHarness.account)/transactions", "GET, HEAD"),
        ("DELETE", "/v1/accounts/\(ServiceHarness.account)/transactions", "GET, HEAD"),
        ("POST", "/v1/report", "GET, HEAD"), ("PATCH", "/v1/report", "GET, HEAD"), ("POST", "/healthz", "GET, HEAD"),
        ("POST", "/metrics", "GET, HEAD"), ("get", "/healthz", "GET, HEAD"),
    ])
    func wrongMethodIsNotAllowedAndNamesTheAllowedOnes(method: String, path: String, allowed: String) throws {
        let harness = try ServiceHarness()

        let response = harness.request(
            method, path, headers: ["Authorization": "Bearer \(ServiceHarness.token)"], body: Array("{}".utf8))

        #expect(response.status == 405, "\(method) \(path)")
        #expect(response.headers["Allow"] == allowed, "\(method) \(path)")
        #expect(try jsonObject(response)["error"] as? String == "method_not_allowed")
        #expect(try harness.count("evidence") == 0)
    }

    @Test func headIsAnsweredLikeGetOnTheQueryRoutes() throws {
        let harness = try QueryRouteTests.harnessWithTips()
        let authorized: HTTPHeaders = ["Authorization": "Bearer \(ServiceHarness.token)"]

        for path in ["/v1/accounts/\(ServiceHarness.account)/transactions", "/v1/report"] {
            let get = harness.request("GET", path, headers: authorized)
            let head = harness.request("HEAD", path, headers: authorized)
            #expect(head == get, "\(path)")
            #expect(harness.request("HEAD", path).status == 401)
        }
    }

    // MARK: Metrics

    @Test func metricsCountRequestsVerificationsNotificationsAndLatency() throws {
        let harness = try ServiceHarness()
        let transaction = try TestChains.transaction(id: "2000000000000401")
        var badSignature = TestJWS.signature(of: transaction)
        badSignature[0] ^= 0xFF

        let before = try PrometheusText(harness.request("GET", "/metrics"))
        #expect(harness.postTransaction(transaction).status == 200)
        #expect(harness.postTransaction(transaction).status == 200)
        #expect(harness.postTransaction(TestJWS.replacingSignature(of: transaction, with: badSignature)).status == 422)
        #expect(harness.post("/v1/transactions", "junk").status == 422)
        let refund = try TestChains.notification(type: "REFUND", uuid: TestChains.uuid(401), around: transaction)
        #expect(harness.postNotification(refund).status == 200)
        #expect(harness.postNotification(refund).status == 200)
        #expect(
            harness.postNotification(try TestChains.notification(type: "TEST", uuid: TestChains.uuid(402))).status
                == 200)
        #expect(
            harness.postNotification(try TestChains.notification(type: "NEW_IN_2030", uuid: TestChains.uuid(403)))
                .status
                == 200)
        #expect(harness.post("/v1/notifications", "{}").status == 400)
        #expect(harness.get("/v1/report", token: nil).status == 401)
        #expect(harness.get("/v1/report").status == 200)
        #expect(harness.request("GET", "/nowhere").status == 404)
        #expect(harness.request("DELETE", "/healthz").status == 405)
        #expect(harness.request("GET", "/healthz").status == 200)
        let response = harness.request("GET", "/metrics")
        let after = try PrometheusText(response)

        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4")
        #expect(before.samples.keys.allSatisfy { !$0.hasPrefix("tipledger_verifications_total") })
        let requests = "tipledger_http_requests_total"
        #expect(after[requests, ["route": "metrics", "status": "200"]] == 1)  // the first /metrics, not this one
        #expect(after[requests, ["route": "transactions", "status": "200"]] == 2)
        #expect(after[requests, ["route": "transactions", "status": "422"]] == 2)
        #expect(after[requests, ["route": "notifications", "status": "200"]] == 4)
        #expect(after[requests, ["route": "notifications", "status": "400"]] == 1)
        #expect(after[requests, ["route": "report", "status": "401"]] == 1)
        #expect(after[requests, ["route": "report", "status": "200"]] == 1)
        #expect(after[requests, ["route": "unknown", "status": "404"]] == 1)
        #expect(after[requests, ["route": "healthz", "status": "405"]] == 1)
        #expect(after[requests, ["route": "healthz", "status": "200"]] == 1)
        let verifications = "tipledger_verifications_total"
        #expect(after[verifications, ["outcome": "ok"]] == 6)
        #expect(after[verifications, ["outcome": "bad_signature"]] == 1)
        #expect(after[verifications, ["outcome": "malformed_jws"]] == 2)
        let notifications = "tipledger_notifications_total"
        #expect(after[notifications, ["type": "REFUND"]] == 2)
        #expect(after[notifications, ["type": "TEST"]] == 1)
        #expect(after[notifications, ["type": "other"]] == 1)

        // The latency histogram of a route: cumulative buckets ending in +Inf = count, a sum.
        for (route, count) in [("transactions", 4.0), ("notifications", 5.0), ("healthz", 2.0)] {
            let buckets = after.buckets("tipledger_http_request_duration_seconds", route: route)
            #expect(buckets.count == 13, "\(route)")
            #expect(buckets.last?.bound == "+Inf")
            #expect(buckets.last?.count == count, "\(route)")
            #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count }, "\(route)")
            #expect(after["tipledger_http_request_duration_seconds_count", ["route": route]] == count)
            let sum = try #require(after["tipledger_http_request_duration_seconds_sum", ["route": route]])
            #expect(sum > 0 && sum < 60, "\(route)")
        }
    }

    @Test func metricsLabelsStayInAFixedSet() throws {
        let harness = try ServiceHarness()

        for index in 0..<20 {
            _ = harness.request("GET", "/random/\(index)")
            _ = harness.get("/v1/accounts/\(TestChains.uuid(index))/transactions")
            _ = harness.postNotification(
                try TestChains.notification(type: "TYPE_\(index)", uuid: TestChains.uuid(index)))
        }
        let metrics = try PrometheusText(harness.request("GET", "/metrics"))

        let routes = Set(metrics.samples.keys.compactMap { PrometheusText.label("route", in: $0) })
        #expect(routes == ["unknown", "accounts", "notifications"])
        let types = Set(metrics.samples.keys.compactMap { PrometheusText.label("type", in: $0) })
        #expect(types == ["other"])
        #expect(metrics.samples.keys.allSatisfy { !$0.contains(TestChains.uuid(1)) })
    }

    // MARK: Ledger failures

    /// How a test makes the service's ledger fail at once.
    ///
    /// Tests run as root here, so a read-only file or directory does not stop SQLite from
    /// writing, and an already open ledger keeps its descriptors when its directory is replaced.
    /// A write lock held by a second connection is the failure the App Store's retry is for, but
    /// the service's connection would wait out its 30-second busy timeout; so the test also sets
    /// that connection's busy timeout to 0 through the store's internal API, and SQLite then
    /// answers SQLITE_BUSY at once. A table dropped by another connection stands for a ledger that
    /// answers with a hard error (and with SQL in its error text).
    enum LedgerFailure: String, CaseIterable, Sendable {
        case busy, damaged

        /// Breaks `harness`'s ledger; returns the blocking connection, which must stay alive
        /// until `repair` is called.
        func inflict(on harness: ServiceHarness) throws -> Ledger {
            let other = try Ledger.open(path: harness.path)
            switch self {
            case .busy:
                try harness.ledger.withDatabase { try $0.execute("PRAGMA busy_timeout = 0") }
                try other.withDatabase { try $0.execute("BEGIN IMMEDIATE") }
            case .damaged:
                try other.withDatabase { try $0.execute("ALTER TABLE events RENAME TO events_elsewhere") }
            }
            return other
        }

        func repair(_ other: Ledger) throws {
            switch self {
            case .busy: try other.withDatabase { try $0.execute("ROLLBACK") }
            case .damaged: try other.withDatabase { try $0.execute("ALTER TABLE events_elsewhere RENAME TO events") }
            }
        }
    }

    /// A ledger file emptied by another program (every table dropped) fails the health check,
    /// and the query routes answer 503 without SQLite's words.
    @Test func healthAndQueriesAnswer503WhenTheLedgerIsGone() throws {
        let harness = try ServiceHarness()
        #expect(harness.postTransaction(try TestChains.transaction(id: "2000000000000413")).status == 200)
        #expect(harness.get("/healthz").status == 200)
        try Database(path: harness.path).execute(
            """
            DROP TABLE consumption_answers; DROP TABLE sync_cursors;
            DROP TABLE consumption_requests; DROP TABLE notifications; DROP TABLE transactions;
            DROP TABLE evidence; DROP TABLE jws_headers; DROP TABLE events;
            """)

        let health = harness.get("/healthz")
        #expect(health.status == 503)
        #expect(
            health.bodyText
                == #"{"status":"unavailable","reason":"unreadable","message":"the ledger does not answer a query"}"#)
        for path in ["/v1/report", "/v1/accounts/\(ServiceHarness.account)/transactions"] {
            let response = harness.get(path)
            #expect(response.status == 503, "\(path)")
            #expect(try jsonObject(response)["error"] as? String == "unavailable")
            #expect(internalText(in: response.body) == [])
        }
    }

    @Test(arguments: LedgerFailure.allCases)
    func notificationIsRetriableWhileTheLedgerFailsThenApplies(_ failure: LedgerFailure) throws {
        let harness = try ServiceHarness()
        let transaction = try TestChains.transaction(id: "2000000000000411")
        #expect(harness.postTransaction(transaction).status == 200)
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(411), signedDate: TestChains.referenceMilliseconds + 60_000,
            around: transaction)

        let other = try failure.inflict(on: harness)
        let failed = harness.postNotification(refund)
        try failure.repair(other)
        let retried = harness.postNotification(refund)

        #expect(failed.status == 503)
        #expect(failed.headers["Retry-After"] == "1")
        #expect(
            failed.bodyText
                == #"{"error":"unavailable","message":"the ledger is busy or unavailable; retry later"}"#)
        #expect(internalText(in: failed.body) == [])
        #expect(retried.status == 200)
        #expect(try jsonObject(retried)["outcome"] as? String == "applied")
        #expect(try harness.count("notifications") == 1)
        // The details went to the log, not to the client.
        let log = harness.logged.lines
        #expect(log.count == 1)
        #expect(log.first?.hasPrefix("ledger error: ") == true)
    }

    @Test(arguments: LedgerFailure.allCases)
    func transactionIsRetriableWhileTheLedgerFailsThenRecorded(_ failure: LedgerFailure) throws {
        let harness = try ServiceHarness()
        let transaction = try TestChains.transaction(id: "2000000000000412")

        let other = try failure.inflict(on: harness)
        let failed = harness.postTransaction(transaction)
        let restore = harness.get("/v1/accounts/\(ServiceHarness.account)/transactions")
        try failure.repair(other)
        let retried = harness.postTransaction(transaction)

        #expect(failed.status == 503)
        #expect(failed.headers["Retry-After"] == "1")
        #expect(try jsonObject(failed)["error"] as? String == "unavailable")
        #expect(internalText(in: failed.body) == [])
        // Reads go on meanwhile: WAL lets them run beside another writer, and restore reads no events.
        #expect(restore.status == 200)
        #expect(internalText(in: restore.body) == [])
        #expect(retried.status == 200)
        #expect(try jsonObject(retried)["outcome"] as? String == "recorded")
        #expect(try harness.count("transactions") == 1)
        #expect(try harness.count("evidence") == 1)
    }
}

/// The samples of a Prometheus text exposition, by their full series name
/// (`name{label="value",...}`).
struct PrometheusText {
    let samples: [String: Double]

    init(_ response: HTTPResponse) throws {
        var samples: [String: Double] = [:]
        for line in response.bodyText.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw PrometheusError(line: String(line))
            }
            samples[String(line[..<space])] = value
        }
        self.samples = samples
    }

    /// The value of `name` with exactly `labels`, or nil when there is no such series.
    subscript(name: String, labels: KeyValuePairs<String, String>) -> Double? {
        let text = labels.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
        return samples["\(name){\(text)}"]
    }

    /// The buckets of histogram `name` for `route`, in increasing bound order.
    func buckets(_ name: String, route: String) -> [(bound: String, count: Double)] {
        let prefix = "\(name)_bucket{route=\"\(route)\",le=\""
        let found = samples.compactMap { key, value -> (String, Double)? in
            guard key.hasPrefix(prefix) else { return nil }
            return (String(key.dropFirst(prefix.count).dropLast(2)), value)
        }
        return found.sorted { (Double($0.0) ?? .infinity) < (Double($1.0) ?? .infinity) }.map { ($0.0, $0.1) }
    }

    /// The value of label `name` in a series name, or nil.
    static func label(_ name: String, in series: String) -> String? {
        guard let range = series.range(of: "\(name)=\"") else { return nil }
        let rest = series[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}

/// A line of the exposition that is not `series value`.
struct PrometheusError: Error {
    let line: String
}
