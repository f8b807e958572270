// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A bound, listening IPv4 TCP socket, opened by the server so that it knows the port the kernel
/// chose and the exact reason a bind failed.
///
/// Ownership: after `HTTPServer` hands the descriptor to libmicrohttpd (`MHD_OPTION_LISTEN_SOCKET`)
/// the daemon uses it; `MHD_quiesce_daemon` hands it back, and the server closes it only after
/// `MHD_stop_daemon`, as the manual requires. The value is a plain copyable handle: exactly one
/// owner (the server's lifecycle state) may call `close`.
struct ListenSocket: Sendable {
    let descriptor: Int32
    /// The port the socket is bound to (the kernel's choice when port 0 was asked for).
    let port: UInt16

    /// Creates, binds and listens; closes the socket again if any step fails.
    static func open(_ address: ListenAddress) throws(HTTPServerError) -> ListenSocket {
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, type, 0)
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

            // libmicrohttpd polls the socket before accepting; non-blocking keeps a lost race for
            // a connection from blocking its listening thread in accept().
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

    /// Makes the kernel refuse new connections at once and reset those queued but not accepted.
    ///
    /// Linux turns `shutdown` on a listening socket into a disconnect (the socket leaves the
    /// LISTEN state) while the descriptor stays open, so it cannot be reused under libmicrohttpd's
    /// threads. libmicrohttpd itself uses the same call to wake its threads when it runs without
    /// an inter-thread channel, and treats the resulting `accept` failure as shutdown.
    func refuseNewConnections() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Releases the descriptor; call once, after `MHD_stop_daemon`.
    func close() {
        closeDescriptor(descriptor)
    }
}

/// `close(2)`, named apart from `ListenSocket.close`.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}
