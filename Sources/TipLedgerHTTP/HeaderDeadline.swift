// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Closes a connection whose next request's headers have not all arrived within the deadline,
/// however steadily they trickle in.
///
/// libmicrohttpd's timeout counts only silence, and it calls the handler once the headers are
/// complete: a client sending a header line now and then would hold its connection, and enough
/// of them every connection, for ever. So every open connection is watched from when it opens,
/// or its last request ended, until its next request's headers are in. A sweep every
/// `sweepInterval` shuts the socket of one that waited too long; libmicrohttpd then reads the end
/// of the stream and closes the connection itself, reporting it closed as for any other.
final class HeaderDeadline: Sendable {
    let deadline: Duration

    private struct Watched {
        let socket: Int32
        /// When the connection began waiting for a request's headers; nil while one is handled.
        var waitingSince: ContinuousClock.Instant?
        var shut = false
    }

    /// By connection handle. A socket is shut only under this lock, and a connection leaves the
    /// table (libmicrohttpd reports it closed) before its socket is closed, so a socket number
    /// reused by then is never touched.
    private let watched = Mutex<[Int: Watched]>([:])
    /// Fires the sweeps. Set once in `init`; a dispatch source may be cancelled from any thread.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    /// Starts sweeping at once, every `sweepInterval`, until `stop` (or until released).
    init(deadline: Duration, sweepInterval: Duration) {
        self.deadline = deadline
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

    func opened(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        watched.withLock { $0[Int(bitPattern: connection)] = Watched(socket: socket, waitingSince: .now) }
    }

    /// The connection's request headers are in.
    func requestStarted(_ connection: OpaquePointer) {
        watched.withLock { $0[Int(bitPattern: connection)]?.waitingSince = nil }
    }

    /// The connection's request was answered (or failed); it waits for the next one.
    func requestEnded(_ connection: OpaquePointer) {
        watched.withLock { $0[Int(bitPattern: connection)]?.waitingSince = .now }
    }

    func closed(_ connection: OpaquePointer) {
        _ = watched.withLock { $0.removeValue(forKey: Int(bitPattern: connection)) }
    }

    /// Shuts the sockets of connections that waited longer than the deadline at `now`; returns
    /// how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant) -> Int {
        watched.withLock { watched in
            var shut = 0
            for (key, connection) in watched where !connection.shut {
                guard let since = connection.waitingSince, now - since > deadline else { continue }
                shutdown(connection.socket, Int32(SHUT_RDWR))
                watched[key]?.shut = true
                shut += 1
            }
            return shut
        }
    }
}
