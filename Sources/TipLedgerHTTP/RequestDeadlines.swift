// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Closes a connection whose next request's headers, or whose request's body, have not all
/// arrived within their deadline, however steadily they trickle in.
///
/// libmicrohttpd's timeout counts only silence. It calls the handler once the headers are
/// complete and then once per piece of body, but not while it reads a chunk's size line, its
/// extensions or the trailers: a client sending a byte now and then, in any of these, would
/// hold its connection, and enough of them every connection, for ever. So every open connection
/// is watched from when it opens, or its last request ended, until its next request's headers
/// are in, and then until its body is in (the handler's own time is not counted, once the
/// handler is called). A sweep every
/// `sweepInterval` shuts the socket of one that took too long; libmicrohttpd then reads the end
/// of the stream and closes the connection itself, reporting it closed as for any other.
final class RequestDeadlines: Sendable {
    let headerDeadline: Duration
    let bodyDeadline: Duration

    /// What a connection is waiting for, and since when.
    private enum Phase {
        case headers(since: ContinuousClock.Instant)
        case body(since: ContinuousClock.Instant)
        /// The request is in: the handler and the answer take what they take.
        case handling
    }

    private struct Watched {
        let socket: Int32
        var phase: Phase
        var shut = false
    }

    /// By connection handle. A socket is shut only under this lock, and a connection leaves the
    /// table (libmicrohttpd reports it closed) before its socket is closed, so a socket number
    /// reused by then is never touched.
    private let watched = Mutex<[Int: Watched]>([:])
    /// Fires the sweeps. Set once in `init`; a dispatch source may be cancelled from any thread.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    /// Starts sweeping at once, every `sweepInterval`, until `stop` (or until released).
    init(headers headerDeadline: Duration, body bodyDeadline: Duration, sweepInterval: Duration) {
        self.headerDeadline = headerDeadline
        self.bodyDeadline = bodyDeadline
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let interval = sweepInterval.dispatchInterval
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in _ = self?.sweep(now: .now) }
        // Resumed here: a source released while still suspended is a crash in libdispatch.
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    func stop() {
        timer.cancel()
    }

    /// A connection opened at `now`: its first request's headers are awaited.
    func opened(_ connection: OpaquePointer, socket: Int32, at now: ContinuousClock.Instant = .now) {
        guard socket >= 0 else { return }
        watched.withLock { $0[Int(bitPattern: connection)] = Watched(socket: socket, phase: .headers(since: now)) }
    }

    /// The connection's request headers are in at `now`; its body (if any) is awaited.
    func headersArrived(_ connection: OpaquePointer, at now: ContinuousClock.Instant = .now) {
        set(.body(since: now), for: connection)
    }

    /// The connection's whole request is in. (A request answered at its headers, a 400 or an
    /// early 413, stays in its body phase: libmicrohttpd does not call the handler again, and
    /// the body deadline then bounds the answer and whatever body it reads and throws away.)
    func requestArrived(_ connection: OpaquePointer) {
        set(.handling, for: connection)
    }

    /// The connection's request was answered (or failed) at `now`; it waits for the next one.
    func requestEnded(_ connection: OpaquePointer, at now: ContinuousClock.Instant = .now) {
        set(.headers(since: now), for: connection)
    }

    func closed(_ connection: OpaquePointer) {
        _ = watched.withLock { $0.removeValue(forKey: Int(bitPattern: connection)) }
    }

    private func set(_ phase: Phase, for connection: OpaquePointer) {
        watched.withLock { $0[Int(bitPattern: connection)]?.phase = phase }
    }

    /// Shuts the sockets of connections past their phase's deadline at `now`; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant) -> Int {
        watched.withLock { watched in
            var shut = 0
            for (key, connection) in watched where !connection.shut {
                let late: Bool
                switch connection.phase {
                case .headers(let since): late = now - since > headerDeadline
                case .body(let since): late = now - since > bodyDeadline
                case .handling: late = false
                }
                guard late else { continue }
                shutdown(connection.socket, Int32(SHUT_RDWR))
                watched[key]?.shut = true
                shut += 1
            }
            return shut
        }
    }
}
