// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD
internal import Dispatch
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Accepts connections on the listening socket, on a thread of its own, and hands each to
/// libmicrohttpd (`MHD_add_connection`), keeping at most `limit` open at once: beyond it, new
/// connections wait in the kernel's accept queue until one closes.
///
/// The server accepts by itself, rather than give libmicrohttpd the socket, so that it can stop
/// accepting safely while libmicrohttpd runs in epoll mode, which keeps thousands of idle or
/// slow connections cheap. libmicrohttpd 0.9.75 has no safe way to stop accepting in that
/// mode: `MHD_quiesce_daemon` and a worker's loop both take the listening socket out of the
/// worker's epoll set, unsynchronised, and the one that comes second aborts the process
/// ("Failed to remove listen FD from epoll set", daemon.c); and a listening socket shut down
/// under it stays ready for ever, so its workers would spin. Here stopping is this thread
/// returning, after which the server closes a socket libmicrohttpd never saw.
///
/// Ownership: the thread holds a +1 on the acceptor until it returns, so the acceptor (and the
/// wake-up pipe it closes in `deinit`) outlives it; the listening socket stays the server's.
final class ConnectionAcceptor: Sendable {
    /// Most connections open at once.
    let limit: Int
    private let listening: Int32
    /// Connections handed to libmicrohttpd and not yet reported closed. (One libmicrohttpd
    /// takes and then fails to set up for want of memory is never reported, and keeps its place.)
    private let open = Atomic<Int>(0)
    /// Set while the thread waits for a connection to close (at the limit, or out of
    /// descriptors): the next close wakes it.
    private let waitingForRoom = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    /// A byte written to `wakeWrite` ends the thread's wait; both ends are non-blocking.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let finished = DispatchSemaphore(value: 0)

    /// The most connections taken in one turn, so that a burst cannot keep the thread from
    /// noticing `stop`.
    private static let acceptsPerTurn = 64
    /// How long to wait for a close before trying again when the process is out of
    /// descriptors (or the kernel out of buffers) and no connection closes meanwhile.
    private static let descriptorRetryMilliseconds: Int32 = 1000

    /// - Throws: `HTTPServerError.daemonStartFailed` when the wake-up pipe cannot be made.
    init(listening socket: ListenSocket, limit: Int) throws(HTTPServerError) {
        self.listening = socket.descriptor
        self.limit = limit
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .daemonStartFailed(address: "the connection acceptor's pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        closeDescriptor(wakeRead)
        closeDescriptor(wakeWrite)
    }

    /// Starts accepting for `daemon`, which must run with an internal thread and an
    /// inter-thread channel (so that it takes up an added connection at once).
    /// - Throws: `HTTPServerError.daemonStartFailed` when no thread can be made.
    func start(handingTo daemon: OpaquePointer) throws(HTTPServerError) {
        let work = Work(acceptor: self, daemon: daemon)
        guard DetachedThread.start({ work.acceptor.run(daemon: work.daemon) }) else {
            throw .daemonStartFailed(address: "the connection acceptor's thread")
        }
        running.store(true, ordering: .sequentiallyConsistent)
    }

    /// Stops accepting: returns once the thread has, and will add no more connections.
    func stop() {
        guard running.exchange(false, ordering: .sequentiallyConsistent) else { return }
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake()
        finished.wait()
    }

    /// libmicrohttpd reported a connection closed: it leaves room for another.
    func connectionClosed() {
        open.subtract(1, ordering: .sequentiallyConsistent)
        if waitingForRoom.exchange(false, ordering: .sequentiallyConsistent) { wake() }
    }

    /// What the thread needs: `@unchecked Sendable` because libmicrohttpd's daemon handle may be
    /// used from any thread for `MHD_add_connection`.
    private final class Work: @unchecked Sendable {
        let acceptor: ConnectionAcceptor
        let daemon: OpaquePointer

        init(acceptor: ConnectionAcceptor, daemon: OpaquePointer) {
            self.acceptor = acceptor
            self.daemon = daemon
        }
    }

    private func run(daemon: OpaquePointer) {
        defer { finished.signal() }
        var outOfDescriptors = false
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let watchListening = !outOfDescriptors && hasRoom()
            if outOfDescriptors { waitingForRoom.store(true, ordering: .sequentiallyConsistent) }
            var ready = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
            ]
            let status = poll(&ready, watchListening ? 2 : 1, outOfDescriptors ? Self.descriptorRetryMilliseconds : -1)
            guard status >= 0 || errno == EINTR else { return }
            if ready[0].revents != 0 { drainWakeUps() }
            waitingForRoom.store(false, ordering: .sequentiallyConsistent)
            outOfDescriptors = false
            if watchListening && ready[1].revents != 0 {
                outOfDescriptors = acceptWaiting(daemon: daemon)
            }
        }
    }

    /// Whether another connection may be taken; when not, leaves `waitingForRoom` set so that
    /// the next close wakes the thread. Checked again after announcing the wait, so that a close
    /// in between is never missed.
    private func hasRoom() -> Bool {
        if open.load(ordering: .sequentiallyConsistent) < limit { return true }
        waitingForRoom.store(true, ordering: .sequentiallyConsistent)
        guard open.load(ordering: .sequentiallyConsistent) < limit else { return false }
        waitingForRoom.store(false, ordering: .sequentiallyConsistent)
        return true
    }

    /// Takes the connections waiting (a turn's worth at most, while there is room) and hands
    /// each to libmicrohttpd. Returns true when the process or system ran out of descriptors
    /// or buffers: the connections then wait in the queue until one closes.
    private func acceptWaiting(daemon: OpaquePointer) -> Bool {
        for _ in 0..<Self.acceptsPerTurn where open.load(ordering: .sequentiallyConsistent) < limit {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept4(listening, $0, &length, ListenSocket.acceptFlags)
                }
            }
            guard client >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return true
                default: return false  // EAGAIN: none left
                }
            }
            open.add(1, ordering: .sequentiallyConsistent)
            // libmicrohttpd owns the socket from here and closes it itself on failure (a client
            // over its own limit, no memory): such a connection is never reported closed.
            let added: MHD_Result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon, client, $0, length)
                }
            }
            if added != .YES { connectionClosed() }
        }
        return false
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up: nothing is lost when this write fails.
        _ = write(wakeWrite, &byte, 1)
    }

    private func drainWakeUps() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &bytes, bytes.count) > 0 {}
    }
}
