// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A bound, listening IPv4 TCP socket, opened by the server so that it knows the port the kernel
/// chose and the exact reason a bind failed.
///
/// Ownership: the server's; only its `ConnectionAcceptor` accepts on it, and libmicrohttpd never
/// sees it. The value is a plain copyable handle: exactly one owner (the server's lifecycle
/// state) may call `close`, after the acceptor has stopped.
struct ListenSocket: Sendable {
    let descriptor: Int32
    /// The port the socket is bound to (the kernel's choice when port 0 was asked for).
    let port: UInt16

    /// The `accept4` flags for a connection: non-blocking, as libmicrohttpd's epoll mode needs,
    /// and not inherited by child processes. (Here, in a file that does not import CMicroHTTPD:
    /// a release build of the module otherwise loses Glibc's `SOCK_*` names in the files that
    /// import Glibc alone.)
    static let acceptFlags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

    /// A new IPv4 TCP socket, not inherited by child processes; -1 with `errno` set when none
    /// can be made.
    static func makeTCPSocket() -> Int32 {
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        return socket(AF_INET, type, 0)
    }

    /// Creates, binds and listens; closes the socket again if any step fails.
    static func open(_ address: ListenAddress) throws(HTTPServerError) -> ListenSocket {
        let descriptor = makeTCPSocket()
        guard descriptor >= 0 else { throw .cannotListen(address: address.description, errno: errno) }
        do throws(HTTPServerError) {
            // SO_REUSEADDR lets a restarted server bind while old connections sit in TIME_WAIT.
            var one: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw .cannotListen(address: address.description, errno: errno) }

            let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
            guard bound == 0 else { throw .cannotListen(address: address.description, errno: errno) }
            guard listen(descriptor, SOMAXCONN) == 0 else {
                throw .cannotListen(address: address.description, errno: errno)
            }

            // The acceptor polls the socket before accepting; non-blocking keeps a connection
            // reset before it is taken from blocking the acceptor in accept().
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
                throw .cannotListen(address: address.description, errno: errno)
            }

            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &actual) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { throw .cannotListen(address: address.description, errno: errno) }
            return ListenSocket(descriptor: descriptor, port: UInt16(bigEndian: actual.sin_port))
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
    }

    /// Closes the socket, once the acceptor has stopped: the kernel then refuses new
    /// connections and resets those queued but not accepted.
    func close() {
        closeDescriptor(descriptor)
    }
}

/// `close(2)`, named apart from `ListenSocket.close`.
func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}
