// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
internal import TipLedgerPresentation
public import TipLedgerStore

/// The HTTP API (docs/http.md) as a pure function from request to response: testable without
/// sockets, served by `HTTPServer`.
///
/// The statuses of the API's answers are decided here in one place: 200 for what was applied,
/// duplicate or ignored; 400 for a notification that is permanently bad; 422 for a rejected
/// transaction; 503 when the ledger is busy or unavailable, or its writer is too far behind, or
/// strict online checks got no answer, so the App Store retries;
/// 401/404/405/413 as usual. (The transport answers framing it cannot trust, 400, and bodies
/// over the limit, 413, before a request gets here.) No response carries internal error text
/// or SQL.
///
/// The write routes verify on threads of their own (`VerificationThreads`), so the server's
/// workers stay free for reads, and hand the verified payload to a `GroupCommitter`, which
/// records it with the others waiting in one transaction; the answer comes once that
/// transaction committed (`HTTPAnswer.later`), so a 200 means the record is durable.
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
    /// Records what the write routes verified, in groups.
    let committer: GroupCommitter
    /// Where the write routes verify, apart from the server's workers.
    let verification: VerificationThreads

    /// The fewest characters an API token may have: `serve` refuses a shorter one, and the
    /// access log masks every path segment this long, where a token sent by mistake would show.
    public static let shortestAPIToken = 16

    /// - Parameters:
    ///   - apiToken: the bearer token of the query routes, at least `shortestAPIToken`
    ///     characters; nil makes them answer 404.
    ///   - finishesTransactions: whether a submitted transaction is recorded as finished.
    ///   - queryEnvironments: the environments restore and report keep to unless a request's
    ///     `environment` parameter says otherwise, as the CLI keeps to `--environment`; nil for
    ///     all of them.
    ///   - writeProbeInterval: while a write has failed, `/healthz` tries at most this often
    ///     whether the ledger commits again (`Ledger.probeWriteIfDue`).
    ///   - writeQueueLimit: how many posted payloads may wait to be verified, and how many
    ///     verified ones for the ledger's writer; a write request past either is answered 503
    ///     with `Retry-After`.
    ///   - verificationThreads: the threads that verify posted payloads (`VerificationThreads`);
    ///     nil for as many as the server has workers by default (one per core), 0 to verify on
    ///     the thread that calls `answer`.
    ///   - notificationRecorded: told of each notification recorded, on the thread that answers
    ///     it: it must return at once (hand work to another thread), as the App Store waits.
    public init(
        verifier: Verifier, ledger: Ledger, apiToken: String?, catalog: StoreKitCatalog? = nil,
        finishesTransactions: Bool = true, queryEnvironments: [AppStoreEnvironment]? = nil, clock: WallClock = .system,
        metrics: ServiceMetrics = ServiceMetrics(), writeProbeInterval: Duration = .seconds(1),
        writeQueueLimit: Int = GroupCommitter.defaultQueueLimit, verificationThreads: Int? = nil,
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
        self.committer = GroupCommitter(ledger: ledger, finish: finishesTransactions, queueLimit: writeQueueLimit)
        self.verification = VerificationThreads(
            threads: verificationThreads ?? HTTPServerConfiguration.defaultWorkerThreads, limit: writeQueueLimit)
    }

    /// The answerer to give `HTTPServer`.
    public var answerer: HTTPAnswerer { { [self] request in answer(request) } }

    /// Answers one request, the write routes once their group committed, and counts it in the
    /// metrics when it is answered.
    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        let started = ContinuousClock.now
        let route = Route(path: request.path)
        let method = request.method == "HEAD" ? "GET" : request.method
        switch (route, method) {
        case (.notifications, "POST"), (.transactions, "POST"):
            if let refusal = request.query.refusal(takes: [], route: route.name) {
                return .now(counted(refusal, route: route.name, since: started))
            }
            return apart(route: route.name, since: started) { [self] deferred in
                if route == .notifications {
                    notification(request, since: started, answering: deferred)
                } else {
                    transaction(request, since: started, answering: deferred)
                }
            }
        default:
            return .now(counted(dispatch(request, route: route, method: method), route: route.name, since: started))
        }
    }

    /// Answers one request, waiting for a write's group to commit: for a caller without a
    /// server.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch answer(request) {
        case .now(let response): response
        case .later(let deferred): deferred.wait()
        }
    }

    /// `response`, counted in the metrics as the route's answer after the time since `started`.
    private func counted(_ response: HTTPResponse, route: String, since started: ContinuousClock.Instant)
        -> HTTPResponse
    {
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

    /// The response of every route but the writes.
    private func dispatch(_ request: HTTPRequest, route: Route, method: String) -> HTTPResponse {
        let response: HTTPResponse
        /// The answer of a route that takes no parameters, unless the request has some.
        func parameterless(_ answer: () -> HTTPResponse) -> HTTPResponse {
            request.query.refusal(takes: [], route: route.name) ?? answer()
        }
        switch route {
        case .notifications, .transactions:
            response = Self.methodNotAllowed("POST")
        case .accounts(let account):
            response = query(request, method: method) { restore(request, account: account) }
        case .report:
            response = query(request, method: method) { report(request) }
        case .reportPage:
            response = query(request, method: method, basic: true) { reportPage(request) }
        case .healthz:
            response = method == "GET" ? parameterless { health() } : Self.methodNotAllowed("GET")
        case .metrics:
            response =
                method == "GET"
                ? parameterless {
                    .text(
                        metrics.render(
                            failedWrites: ledger.health.failedWrites, writeGroups: committer.groupsWritten,
                            revocation: verifier.onlineChecks?.checker.counts),
                        contentType: "text/plain; version=0.0.4")
                }
                : Self.methodNotAllowed("GET")
        case .unknown:
            response = Self.notFound
        }
        return response
    }

    static let notFound = HTTPResponse.error(.notFound, "no such resource")

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = HTTPResponse.error(.methodNotAllowed, "use \(allowed)")
        response.headers.set("Allow", allowed == "GET" ? "GET, HEAD" : allowed)
        return response
    }

    // MARK: POST /v1/notifications

    private func notification(
        _ request: HTTPRequest, since started: ContinuousClock.Instant, answering deferred: DeferredResponse
    ) {
        let route = Route.notifications.name
        guard let body = String(validating: request.body, as: UTF8.self) else {
            return deferred.answer(counted(rejection(.notUTF8("the body"), status: 400), route: route, since: started))
        }
        let verified: VerifiedNotification
        do {
            verified = try verifier.verifyNotification(try WebhookBody.signedPayload(of: body))
        } catch {
            return deferred.answer(counted(rejection(error, status: 400), route: route, since: started))
        }
        record(.notification(verified), rejectedStatus: 400, route: route, since: started, answering: deferred) {
            [self] result in
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
    }

    /// Hands a verified payload to the group committer and answers once its group committed:
    /// `recorded`'s response, the rejection (answered `rejectedStatus` with the code) when the
    /// ledger rejects it, or 503 when the ledger cannot take it (its write failed, or too many
    /// payloads wait for the writer already). Counts the verification once, by its outcome, and
    /// the request as `route`'s.
    private func record(
        _ payload: VerifiedPayload, rejectedStatus: Int, route: String, since started: ContinuousClock.Instant,
        answering deferred: DeferredResponse, recorded: @escaping @Sendable (RecordResult) -> HTTPResponse
    ) {
        let queued = committer.submit(payload) { [self] result in
            // On the writer's thread: the response is built by the worker that sends it.
            deferred.answer { [self] in
                let response: HTTPResponse
                switch result {
                case .success(let result):
                    metrics.countVerification("ok")
                    response = recorded(result)
                case .failure(let refused as VerificationError):
                    // `rejection` counts the verification by its code.
                    response = rejection(refused, status: rejectedStatus)
                case .failure(let error):
                    metrics.countVerification("ok")
                    response = unavailable(error)
                }
                return counted(response, route: route, since: started)
            }
        }
        guard queued else {
            metrics.countVerification("ok")
            metrics.countWriteQueueRefusal()
            return deferred.answer(counted(Self.writeQueueFull, route: route, since: started))
        }
    }

    /// Verifies and records a posted payload on `verification`'s threads (`write` answers
    /// `deferred`, at once or once its group committed), so the worker that read the request
    /// goes on to its other connections. 503 at once when `writeQueueLimit` requests wait for
    /// those threads already.
    private func apart(
        route: String, since started: ContinuousClock.Instant,
        _ write: @escaping @Sendable (DeferredResponse) -> Void
    ) -> HTTPAnswer {
        let deferred = DeferredResponse()
        let queued = verification.submit {
            // A request the server gave up on (it stopped) was answered 503 and is retried:
            // recording it now would only make the retry a duplicate.
            guard !deferred.isAbandoned else { return }
            write(deferred)
        }
        guard queued else {
            metrics.countVerificationQueueRefusal()
            return .now(counted(Self.verificationQueueFull, route: route, since: started))
        }
        return .later(deferred)
    }

    /// 503 for a write while `writeQueueLimit` writes wait to be verified already.
    static let verificationQueueFull = HTTPResponse.unavailable("too many writes wait to be verified; retry later")

    /// 503 for a write while `GroupCommitter.queueLimit` payloads wait for the writer already.
    static let writeQueueFull = HTTPResponse.unavailable("the ledger's writer is behind; retry later")

    // MARK: POST /v1/transactions

    private func transaction(
        _ request: HTTPRequest, since started: ContinuousClock.Instant, answering deferred: DeferredResponse
    ) {
        let route = Route.transactions.name
        guard let body = String(validating: request.body, as: UTF8.self) else {
            return deferred.answer(counted(rejection(.notUTF8("the body"), status: 422), route: route, since: started))
        }
        let verified: VerifiedTransaction
        do {
            verified = try verifier.verifyTransaction(try Self.signedTransaction(in: body))
        } catch {
            return deferred.answer(counted(rejection(error, status: 422), route: route, since: started))
        }
        record(.transaction(verified), rejectedStatus: 422, route: route, since: started, answering: deferred) {
            result in
            .json { writer in
                writer.object { object in
                    VerifiedPayloadJSON.write(.transaction(verified), recording: result, to: &object)
                }
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

    /// A payload's rejection, with `status`; or 503 with `Retry-After` when the rejection is
    /// retryable (strict online checks without an answer), so the App Store sends it again.
    private func rejection(_ error: VerificationError, status: Int) -> HTTPResponse {
        metrics.countVerification(error.code.rawValue)
        var response = HTTPResponse.json(status: error.code.isRetryable ? 503 : status) { writer in
            writer.object { object in
                object.field("error", error.code.rawValue)
                object.field("message", error.message)
                object.field("appleStatus", error.appleStatus)
            }
        }
        if error.code.isRetryable { response.headers.set("Retry-After", "60") }
        return response
    }

    /// 503 for a ledger failure, so the App Store (or the app) retries later. The details go to
    /// the log, never into the response.
    func unavailable(_ error: any Error) -> HTTPResponse {
        log("ledger error: \(error)" + ((error as? StoreError)?.hint.map { "; hint: \($0)" } ?? ""))
        return HTTPResponse.unavailable("the ledger is busy or unavailable; retry later")
    }
}
