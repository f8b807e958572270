// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD
internal import Dispatch
internal import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that hands each complete request to an `HTTPHandler`.
///
/// It serves from the moment `init` returns until `stop` (or until it is released, which stops
/// it without a grace period). A thread of its own accepts connections (`ConnectionAcceptor`);
/// a pool of `workerThreads` threads (one per core by default) reads requests and runs the
/// handler; while a handler runs, the other connections of its worker wait, which suits short
/// CPU-bound work such as signature checks. A request whose answer waits on something else (an
/// `HTTPAnswer.later`) parks its connection rather than its worker until the answer comes.
/// Safety limits come from `HTTPServerConfiguration`: bodies over the limit get 413 without
/// being kept (a declared `Content-Length` is refused before the client sends the body),
/// headers and bodies have deadlines however they trickle in, silent connections are closed
/// after the timeout, and connections over the limit wait in the kernel's queue.
/// See <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html>.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    /// The port the server listens on; the kernel's choice when the configuration asked for 0.
    public let port: UInt16

    private let context: DaemonContext
    private let lifecycle: Mutex<Lifecycle>
    /// Entered while the daemon runs; a `stop` racing the first one waits on it.
    private let running = DispatchGroup()

    private enum Lifecycle {
        case running(Daemon)
        case stopping
        case stopped(drained: Bool)
    }

    /// The daemon handle and the listening socket.
    ///
    /// `@unchecked Sendable`: libmicrohttpd allows `MHD_stop_daemon` from any thread; the
    /// lifecycle state hands the handle to exactly one `stop`.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
        let socket: ListenSocket
    }

    /// Binds the listen address and starts serving, answering each request with `handler`
    /// (called concurrently on worker threads). See `init(configuration:accessLog:answerer:)`.
    public convenience init(
        configuration: HTTPServerConfiguration, accessLog: AccessLogger? = nil,
        handler: @escaping HTTPHandler
    ) throws(HTTPServerError) {
        try self.init(configuration: configuration, accessLog: accessLog, answerer: { .now(handler($0)) })
    }

    /// Binds the listen address and starts serving.
    ///
    /// - Parameters:
    ///   - accessLog: called once per answered request after its response (see `AccessLogEntry`).
    ///   - answerer: answers each request, now or later; called concurrently on worker threads.
    /// - Throws: `HTTPServerError` when the configuration is out of range, the address cannot be
    ///   bound (in use, not local, not permitted) or libmicrohttpd cannot start.
    public init(
        configuration: HTTPServerConfiguration, accessLog: AccessLogger? = nil,
        answerer: @escaping HTTPAnswerer
    ) throws(HTTPServerError) {
        try configuration.validate()
        if configuration.tls != nil && MHD_is_feature_supported(.FEATURE_TLS) != .YES {
            throw .invalidConfiguration("this libmicrohttpd is built without TLS")
        }
        let socket = try ListenSocket.open(configuration.listenAddress)
        let acceptor: ConnectionAcceptor
        do {
            acceptor = try ConnectionAcceptor(listening: socket, limit: configuration.connectionLimit)
        } catch {
            socket.close()
            throw error
        }
        let context = DaemonContext(
            answerer: answerer, accessLog: accessLog, acceptor: acceptor,
            maximumBodyBytes: configuration.maximumBodyBytes,
            bodyDeadline: .seconds(configuration.bodyDeadlineSeconds),
            headerDeadline: .seconds(configuration.headerDeadlineSeconds))

        // A fixed pool of worker threads, each running handlers for the connections it was
        // given. Chosen over one thread per connection: in that mode libmicrohttpd 0.9.75 kept
        // counting connections their clients had already closed (their threads are reaped later
        // by the listening thread), and under load clients connecting per request were reset
        // well below the real concurrency. A worker reaps its own connections in its own loop.
        // epoll, so that thousands of idle or slow connections cost a worker nothing until they
        // send a byte; with poll(2) every wake-up scans all of a worker's connections. The
        // acceptor hands connections over (MHD_USE_NO_LISTEN_SOCKET; see `ConnectionAcceptor`
        // for why), and MHD_USE_ITC makes a worker take up an added connection at once ("you
        // must set the option MHD_USE_ITC to ensure that the freshly added connection is
        // immediately processed"). The acceptor keeps to the connection limit; libmicrohttpd
        // splits its own limit in equal shares among the workers and closes a connection given
        // to a worker whose share is full, so it gets the limit once per worker, which no share
        // can reach. MHD_ALLOW_SUSPEND_RESUME, so that a request whose answer comes later (after
        // the commit it shares with others) parks its connection rather than its worker: the
        // workers read the next requests meanwhile, and a commit can take in the requests of
        // every connection, not one per worker. No MHD_USE_ERROR_LOG: it writes free-form lines
        // to stderr.
        let flags =
            MHD_USE_EPOLL.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        // The context goes in unretained: `self` keeps it alive and stops the daemon before
        // releasing it (see `deinit`), and no callback runs after MHD_stop_daemon returns.
        let contextPointer = Unmanaged.passUnretained(context).toOpaque()
        // The certificate and key are copied by libmicrohttpd while it starts; NULL serves HTTP.
        let started = withOptionalCString(configuration.tls?.certificateChainPEM) { certificate in
            withOptionalCString(configuration.tls?.privateKeyPEM) { key in
                tl_mhd_start_daemon(
                    flags, DaemonCallbacks.accessHandler, contextPointer,
                    DaemonCallbacks.requestCompleted, contextPointer, DaemonCallbacks.connectionNotified,
                    contextPointer, DaemonCallbacks.requestLineRead, UInt32(configuration.workerThreads),
                    UInt32(configuration.connectionLimit * configuration.workerThreads),
                    UInt32(configuration.connectionsPerClient), UInt32(configuration.connectionTimeoutSeconds),
                    certificate, key)
            }
        }
        guard let daemon = started else {
            socket.close()
            throw .daemonStartFailed(address: configuration.listenAddress.description)
        }
        do {
            try acceptor.start(handingTo: daemon)
        } catch {
            MHD_stop_daemon(daemon)
            context.deadlines.stop()
            socket.close()
            throw error
        }

        self.configuration = configuration
        self.port = socket.port
        self.context = context
        self.lifecycle = Mutex(.running(Daemon(pointer: daemon, socket: socket)))
        running.enter()
    }

    deinit {
        stop(gracePeriod: .zero)
    }

    /// Stops gracefully: refuses new connections, lets requests in flight finish, then stops.
    ///
    /// From the first moment new connections are refused (connections queued but not yet
    /// accepted are reset), and responses carry `Connection: close`. It then waits up to
    /// `gracePeriod` for every request already being received or handled to be answered, and
    /// finally stops the daemon, which closes the remaining connections (idle keep-alive ones,
    /// and slow ones still sending after the grace period).
    ///
    /// Blocks the calling thread. A handler that never returns blocks it for ever, since
    /// libmicrohttpd joins every worker thread; for the same reason a handler must never call
    /// it. Calls after the first wait for the first to finish and return its result.
    ///
    /// - Returns: true when every request in flight finished within the grace period.
    @discardableResult
    public func stop(gracePeriod: Duration = .seconds(10)) -> Bool {
        let daemon: Daemon? = lifecycle.withLock { state in
            guard case .running(let daemon) = state else { return nil }
            state = .stopping
            return daemon
        }
        guard let daemon else {
            running.wait()
            return lifecycle.withLock { state in
                if case .stopped(let drained) = state { return drained }
                return false
            }
        }

        context.draining.store(true, ordering: .relaxed)
        // No connection is added after the acceptor stops, so the socket can go at once.
        context.acceptor.stop()
        daemon.socket.close()

        let drained = context.inFlight.wait(timeout: .now() + gracePeriod.dispatchInterval) == .success

        // libmicrohttpd must not stop with a connection suspended: those still waiting for an
        // answer are resumed, their answers abandoned, and closed with the rest.
        context.suspended.resumeAll()
        // Closes the connections left and joins their threads; the completion callback has run
        // for every request when it returns.
        MHD_stop_daemon(daemon.pointer)
        context.deadlines.stop()

        lifecycle.withLock { $0 = .stopped(drained: drained) }
        running.leave()
        return drained
    }
}

extension Duration {
    /// The same span for Dispatch: whole nanoseconds, `.never` past what it can hold, zero
    /// for a negative span.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return .nanoseconds(0) }
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, nanoseconds.partialValue < Int64(Int.max) else { return .never }
        return .nanoseconds(Int(nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}

/// Calls `body` with `text` as a C string, or with NULL when it is nil.
private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
