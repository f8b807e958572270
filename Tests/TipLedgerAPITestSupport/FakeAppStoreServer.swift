// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Foundation
internal import Synchronization
public import TipLedgerCore
internal import TipLedgerHTTP
internal import TipLedgerTestSupport

/// A local App Store Server API over HTTPS for tests: it checks every request as Apple does and
/// answers with the replies a test scripts.
///
/// It listens on 127.0.0.1 with a certificate for `localhost` from a certificate authority
/// minted for it (`certificateAuthorityFile`, which a client must be told to trust). Each
/// request is checked in Apple's order: the bearer token (signature against the account's key,
/// header, claims, lifetime; 401 with no body when it fails), the method and path (404 or 405),
/// the `Accept` and `User-Agent` fields, the query and the JSON body (400 with Apple's error
/// body). Every refusal is recorded in `rejections`. An accepted request is answered with the
/// next queued reply, else with the responder's, else 500 and a rejection.
public final class FakeAppStoreServer: Sendable {
    /// `https://localhost:PORT`.
    public let baseURL: String
    /// The PEM file of the root that issued the server's certificate.
    public let certificateAuthorityFile: String
    /// Whose tokens the fake accepts.
    public let account: APITestAccount
    private let state: FakeServerState
    private let server: HTTPServer
    private let directory: TemporaryDirectory

    /// Starts serving.
    ///
    /// - Parameters:
    ///   - account: the credentials tokens must be signed with.
    ///   - clock: when given, tokens must be valid at its time.
    ///   - port: the port to listen on; 0 for any free one.
    public init(account: APITestAccount, clock: WallClock? = nil, port: UInt16 = 0) throws {
        let authority = try TestTLSAuthority()
        let directory = try TemporaryDirectory()
        certificateAuthorityFile = directory.file("fake-app-store-ca.pem")
        try Data(authority.certificateAuthorityPEM.utf8).write(to: URL(fileURLWithPath: certificateAuthorityFile))
        let state = FakeServerState(check: BearerTokenCheck(account: account, clock: clock), clock: clock)
        var configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(host: "127.0.0.1", port: port))
        configuration.tls = authority.serverIdentity
        // Stalled replies hold a worker each until released.
        configuration.workerThreads = 4
        server = try HTTPServer(configuration: configuration, handler: state.answer)
        baseURL = "https://\(TestTLSAuthority.hostName):\(server.port)"
        self.account = account
        self.state = state
        self.directory = directory
    }

    deinit {
        stop()
    }

    /// Queues replies, answered in order to the next accepted requests.
    public func reply(_ replies: FakeReply...) {
        state.locked.withLock { $0.queue += replies }
    }

    /// Answers accepted requests when no reply is queued.
    public func respond(_ responder: @escaping @Sendable (FakeRequest) -> FakeReply) {
        state.locked.withLock { $0.responder = responder }
    }

    /// How many requests arrived, refused ones included (TLS handshakes that failed are none).
    public var arrivals: Int { state.locked.withLock { $0.arrivals } }

    /// The requests that passed every check, in order.
    public var requests: [FakeRequest] { state.locked.withLock { $0.requests } }

    /// Why requests were refused, in order; empty when every request was as Apple wants it.
    public var rejections: [String] { state.locked.withLock { $0.rejections } }

    /// Lets every stalled request, and every later one, end (with 503).
    public func releaseStalled() {
        let waiting = state.locked.withLock { state in
            state.stallsReleased = true
            return state.stalled
        }
        waiting.forEach { $0.signal() }
    }

    /// Releases stalled requests and stops serving.
    public func stop() {
        releaseStalled()
        server.stop(gracePeriod: .seconds(5))
    }
}

/// What the fake's handler reads and writes on the server's worker threads.
final class FakeServerState: Sendable {
    struct Locked {
        var queue: [FakeReply] = []
        var responder: (@Sendable (FakeRequest) -> FakeReply)?
        var arrivals = 0
        var requests: [FakeRequest] = []
        var rejections: [String] = []
        var stalled: [DispatchSemaphore] = []
        var stallsReleased = false
    }

    let locked = Mutex(Locked())
    private let check: BearerTokenCheck
    private let clock: WallClock?

    init(check: BearerTokenCheck, clock: WallClock?) {
        self.check = check
        self.clock = clock
    }

    /// The handler: checks `request` as Apple does and answers it.
    @Sendable func answer(_ request: HTTPRequest) -> HTTPResponse {
        locked.withLock { $0.arrivals += 1 }
        let token: (header: JSONObject, claims: JSONObject)
        switch check.check(request.headers) {
        case .success(let checked): token = checked
        case .failure(let rejection): return refuse(rejection, HTTPResponse(status: 401))
        }
        guard let (endpoint, parameter) = FakeEndpoint.route(request.path) else {
            return refuse(FakeRejection("no endpoint at \(request.path)"), HTTPResponse(status: 404))
        }
        guard request.method == endpoint.method else {
            return refuse(
                FakeRejection("\(endpoint.rawValue) is \(endpoint.method), not \(request.method)"),
                HTTPResponse(status: 405))
        }
        if let rejection = checkHeaders(request.headers)
            ?? endpoint.problem(with: request.query).map({ FakeRejection($0) })
        {
            return badRequest(rejection)
        }
        let body: JSONObject?
        switch endpoint.body(of: request) {
        case .success(let object): body = object
        case .failure(let rejection): return badRequest(rejection)
        }
        let accepted = FakeRequest(
            endpoint: endpoint, parameter: parameter, query: request.query, body: body, tokenHeader: token.header,
            claims: token.claims, headers: request.headers, arrivedAt: clock?.now())
        let reply: FakeReply? = locked.withLock { state in
            state.requests.append(accepted)
            if !state.queue.isEmpty { return state.queue.removeFirst() }
            return state.responder?(accepted)
        }
        guard let reply else {
            return refuse(FakeRejection("no reply is scripted for \(endpoint.rawValue)"), HTTPResponse(status: 500))
        }
        if case .stall(let limit) = reply { stall(upTo: limit) }
        return reply.response
    }

    /// Why the `Accept` or `User-Agent` field is not what the client sends, or nil.
    private func checkHeaders(_ headers: HTTPHeaders) -> FakeRejection? {
        guard headers["Accept"] == "application/json" else { return FakeRejection("Accept is not application/json") }
        guard headers["User-Agent"]?.hasPrefix("tipledger/") == true else {
            return FakeRejection("User-Agent does not name tipledger")
        }
        return nil
    }

    private func refuse(_ rejection: FakeRejection, _ response: HTTPResponse) -> HTTPResponse {
        locked.withLock { $0.rejections.append(rejection.reason) }
        return response
    }

    private func badRequest(_ rejection: FakeRejection) -> HTTPResponse {
        refuse(rejection, FakeReply.appleError(status: 400, code: rejection.code, message: rejection.reason).response)
    }

    /// Waits until the stalled requests are released, or `limit` passes (so a test that forgets
    /// to release does not hang the suite).
    private func stall(upTo limit: Duration) {
        let gate = DispatchSemaphore(value: 0)
        let released = locked.withLock { state in
            if !state.stallsReleased { state.stalled.append(gate) }
            return state.stallsReleased
        }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        if !released { _ = gate.wait(timeout: .now() + seconds) }
    }
}
