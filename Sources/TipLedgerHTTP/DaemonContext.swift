// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization

/// What libmicrohttpd's callbacks reach for every request: the answerer, the limits, the count
/// of requests in flight, the connections waiting for deferred answers and the acceptor that
/// waits for connections to close. Immutable or synchronised, so any worker thread may use it.
///
/// Ownership: `HTTPServer` keeps the only strong reference and passes it to the daemon unretained
/// (`Unmanaged.passUnretained`) as the callbacks' closure argument. That is safe because the
/// server stops the daemon (`MHD_stop_daemon`, after which no callback runs) before it lets go.
final class DaemonContext: Sendable {
    let answerer: HTTPAnswerer
    let accessLog: AccessLogger?
    /// The largest body kept, and how a larger one is refused.
    let bodyLimit: BodyLimit
    /// One `enter` per request that reached the handler callback, one `leave` when libmicrohttpd
    /// reports it completed; `stop` waits on it.
    let inFlight = DispatchGroup()
    /// Set when `stop` begins: responses then carry `Connection: close` so that keep-alive
    /// clients do not hold the drain open with new requests.
    let draining = Atomic<Bool>(false)

    /// How long a request's headers, and then its body, may take to arrive in all.
    let deadlines: RequestDeadlines
    /// Told of every connection closed, to take another in its place.
    let acceptor: ConnectionAcceptor
    /// Connections whose answer comes later (`HTTPAnswer.later`).
    let suspended = SuspendedConnections()

    init(
        answerer: @escaping HTTPAnswerer, accessLog: AccessLogger?, acceptor: ConnectionAcceptor, maximumBodyBytes: Int,
        bodyDeadline: Duration, headerDeadline: Duration
    ) {
        // Four sweeps per deadline, and at least one a second: a connection is cut at most a
        // quarter of the deadline late.
        self.deadlines = RequestDeadlines(
            headers: headerDeadline, body: bodyDeadline,
            sweepInterval: min(.seconds(1), min(headerDeadline, bodyDeadline) / 4))
        self.answerer = answerer
        self.accessLog = accessLog
        self.acceptor = acceptor
        self.bodyLimit = BodyLimit(maximumBytes: maximumBodyBytes)
    }
}
