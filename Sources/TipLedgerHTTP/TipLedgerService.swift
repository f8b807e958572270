// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
internal import TipLedgerPresentation
public import TipLedgerStore

/// The HTTP API (docs/http.md) as a pure function from request to response: testable without
/// sockets, served by `HTTPServer`.
///
/// The statuses of the API's answers are decided here in one place: 200 for what was applied,
/// duplicate or ignored; 400 for a notification that is permanently bad; 422 for a rejected
/// transaction; 503 when the ledger is busy or unavailable, so the App Store retries;
/// 401/404/405/413 as usual. (The transport answers framing it cannot trust, 400, and bodies
/// over the limit, 413, before a request gets here.) No response carries internal error text
/// or SQL.
public final class TipLedgerService: Sendable {
    public let verifier: Verifier
    public let ledger: Ledger
    public let metrics: ServiceMetrics
    /// The query routes' credential; nil when no API token is configured.
    let authorization: BearerAuthorization?
    let catalog: StoreKitCatalog?
    let finishesTransactions: Bool
    /// The environments the query routes keep to when a request names none; nil for all.
    let queryEnvironments: [AppStoreEnvironment]?
    let clock: WallClock
    /// How often `/healthz` may probe whether the ledger writes again after a write failed.
    let writeProbeInterval: Duration
    /// Where failures that the response does not describe are reported (e.g. a store error).
    let log: @Sendable (String) -> Void
    /// Told of each notification recorded, after it was committed and before it is answered.
    let notificationRecorded: @Sendable (VerifiedNotification, RecordResult) -> Void

    /// - Parameters:
    ///   - apiToken: the bearer token of the query routes; nil makes them answer 404.
    ///   - finishesTransactions: whether a submitted transaction is recorded as finished.
    ///   - queryEnvironments: the environments restore and report keep to unless a request's
    ///     `environment` parameter says otherwise, as the CLI keeps to `--environment`; nil for
    ///     all of them.
    ///   - writeProbeInterval: while a write has failed, `/healthz` tries at most this often
    ///     whether the ledger commits again (`Ledger.probeWriteIfDue`).
    ///   - notificationRecorded: told of each notification recorded, on the request's thread:
    ///     it must return at once (hand work to another thread), as the App Store waits.
    public init(
        verifier: Verifier, ledger: Ledger, apiToken: String?, catalog: StoreKitCatalog? = nil,
        finishesTransactions: Bool = true, queryEnvironments: [AppStoreEnvironment]? = nil, clock: WallClock = .system,
        metrics: ServiceMetrics = ServiceMetrics(), writeProbeInterval: Duration = .seconds(1),
        log: @escaping @Sendable (String) -> Void = { _ in },
        notificationRecorded: @escaping @Sendable (VerifiedNotification, RecordResult) -> Void = { _, _ in }
    ) {
        self.verifier = verifier
        self.ledger = ledger
        self.authorization = apiToken.map(BearerAuthorization.init(token:))
        self.catalog = catalog
        self.finishesTransactions = finishesTransactions
        self.queryEnvironments = queryEnvironments
        self.clock = clock
        self.metrics = metrics
        self.writeProbeInterval = writeProbeInterval
        self.log = log
        self.notificationRecorded = notificationRecorded
    }

    /// The handler to give `HTTPServer`.
    public var handler: HTTPHandler { { [self] request in handle(request) } }

    /// Answers one request and counts it in the metrics.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        let (route, response) = dispatch(request)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.countRequest(route: route, status: response.status, seconds: seconds)
        return response
    }

    /// Counts a request the transport answered itself, without calling the handler (400 for
    /// ambiguous body framing, 413 for a body over the limit), so `/metrics` sees every answer;
    /// the handler's answers are counted already. Pass it every access-log entry.
    public func countTransportAnswer(_ entry: AccessLogEntry) {
        guard !entry.handled else { return }
        metrics.countRequest(
            route: Route(path: entry.path).name, status: entry.status, seconds: Double(entry.durationMicroseconds) / 1e6
        )
    }

    /// The route name (the metrics label) and the response.
    private func dispatch(_ request: HTTPRequest) -> (String, HTTPResponse) {
        let route = Route(path: request.path)
        let method = request.method == "HEAD" ? "GET" : request.method
        let response: HTTPResponse
        /// The answer of a route that takes no parameters, unless the request has some.
        func parameterless(_ answer: () -> HTTPResponse) -> HTTPResponse {
            request.query.refusal(takes: [], route: route.name) ?? answer()
        }
        switch route {
        case .notifications:
            response = method == "POST" ? parameterless { notification(request) } : Self.methodNotAllowed("POST")
        case .transactions:
            response = method == "POST" ? parameterless { transaction(request) } : Self.methodNotAllowed("POST")
        case .accounts(let account):
            response = query(request, method: method) { restore(request, account: account) }
        case .report:
            response = query(request, method: method) { report(request) }
        case .healthz:
            response = method == "GET" ? parameterless { health() } : Self.methodNotAllowed("GET")
        case .metrics:
            response =
                method == "GET"
                ? parameterless {
                    .text(
                        metrics.render(failedWrites: ledger.health.failedWrites),
                        contentType: "text/plain; version=0.0.4")
                }
                : Self.methodNotAllowed("GET")
        case .unknown:
            response = Self.notFound
        }
        return (route.name, response)
    }

    static let notFound = HTTPResponse.error(.notFound, "no such resource")

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = HTTPResponse.error(.methodNotAllowed, "use \(allowed)")
        response.headers.set("Allow", allowed == "GET" ? "GET, HEAD" : allowed)
        return response
    }

    // MARK: POST /v1/notifications

    private func notification(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = String(validating: request.body, as: UTF8.self) else {
            return rejection(.notUTF8("the body"), status: 400)
        }
        let verified: VerifiedNotification
        do {
            verified = try verifier.verifyNotification(try WebhookBody.signedPayload(of: body))
        } catch {
            return rejection(error, status: 400)
        }
        let result: RecordResult
        switch record(.notification(verified), finish: false, rejectedStatus: 400) {
        case .recorded(let recorded): result = recorded
        case .answered(let response): return response
        }
        let type = NotificationType(rawValue: verified.rawNotificationType)?.rawValue ?? "other"
        metrics.countNotification(type: type)
        notificationRecorded(verified, result)
        return .json { writer in
            writer.object { object in
                // As `verify --format json` says it.
                VerifiedPayloadJSON.write(.notification(verified), recording: result, to: &object)
            }
        }
    }

    private enum Recording {
        case recorded(RecordResult)
        /// The answer instead: a rejection, or 503 when the ledger cannot take it now.
        case answered(HTTPResponse)
    }

    /// Records a verified payload as a batch of one, unless the ledger rejects it (answered
    /// `rejectedStatus` with the code) or cannot take it now (503). Counts the verification
    /// once, by its outcome.
    private func record(_ payload: VerifiedPayload, finish: Bool, rejectedStatus: Int) -> Recording {
        let recording: Recording
        do {
            switch try ledger.record([payload], finish: finish)[0] {
            case .success(let result):
                recording = .recorded(result)
            case .failure(let refused):
                // `rejection` counts the verification by its code.
                return .answered(rejection(refused, status: rejectedStatus))
            }
        } catch {
            recording = .answered(unavailable(error))
        }
        metrics.countVerification("ok")
        return recording
    }

    // MARK: POST /v1/transactions

    private func transaction(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = String(validating: request.body, as: UTF8.self) else {
            return rejection(.notUTF8("the body"), status: 422)
        }
        let verified: VerifiedTransaction
        do {
            verified = try verifier.verifyTransaction(try Self.signedTransaction(in: body))
        } catch {
            return rejection(error, status: 422)
        }
        let result: RecordResult
        switch record(.transaction(verified), finish: finishesTransactions, rejectedStatus: 422) {
        case .recorded(let recorded): result = recorded
        case .answered(let response): return response
        }
        return .json { writer in
            writer.object { object in
                VerifiedPayloadJSON.write(.transaction(verified), recording: result, to: &object)
            }
        }
    }

    /// The JWS of a transaction submission: the raw body, or `{"signedTransaction":"..."}`.
    static func signedTransaction(in body: String) throws(VerificationError) -> String {
        let shape = #"a transaction is posted as its JWS, or as {"signedTransaction":"<JWS>"}"#
        let trimmed = UnverifiedJWS.trimmed(body)
        guard !trimmed.isEmpty else { throw VerificationError(.malformedJWS, "the body is empty; \(shape)") }
        guard trimmed.first == "{" else { return body }
        let members: JSONObject?
        do {
            members = try JSONParser.parse(body).objectValue
        } catch {
            throw VerificationError(.malformedJWS, "the body is not JSON: \(error); \(shape)")
        }
        if case .string(let token)? = members?["signedTransaction"] { return token }
        if members?["signedPayload"] != nil {
            throw VerificationError(
                .malformedJWS, "the body is a notification's webhook body; post it to /v1/notifications")
        }
        throw VerificationError(.malformedJWS, "the body has no signedTransaction string; \(shape)")
    }

    /// 200 while the ledger answers a query and its writes commit; 503 with the reason
    /// otherwise. After a write failed, the ledger is asked now and then whether it commits
    /// again (`writeProbeInterval`), so health comes back by itself even when no client writes.
    private func health() -> HTTPResponse {
        ledger.probeWriteIfDue(every: writeProbeInterval)
        let reason: String
        let message: String
        if let failure = ledger.health.failure {
            reason = failure.fault.rawValue
            message = "the ledger cannot commit: \(failure.fault.explanation)"
        } else if !ledger.isHealthy() {
            reason = "unreadable"
            message = "the ledger does not answer a query"
        } else {
            return .json { $0.object { $0.field("status", "ok") } }
        }
        return .json(status: 503) { writer in
            writer.object { object in
                object.field("status", "unavailable")
                object.field("reason", reason)
                object.field("message", message)
            }
        }
    }

    // MARK: Errors

    private func rejection(_ error: VerificationError, status: Int) -> HTTPResponse {
        metrics.countVerification(error.code.rawValue)
        return .json(status: status) { writer in
            writer.object { object in
                object.field("error", error.code.rawValue)
                object.field("message", error.message)
                object.field("appleStatus", error.appleStatus)
            }
        }
    }

    /// 503 for a ledger failure, so the App Store (or the app) retries later. The details go to
    /// the log, never into the response.
    func unavailable(_ error: any Error) -> HTTPResponse {
        log("ledger error: \(error)" + ((error as? StoreError)?.hint.map { "; hint: \($0)" } ?? ""))
        var response = HTTPResponse.error(.unavailable, "the ledger is busy or unavailable; retry later")
        response.headers.set("Retry-After", "1")
        return response
    }
}
