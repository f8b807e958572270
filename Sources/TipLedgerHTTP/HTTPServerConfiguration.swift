// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The server's address and safety limits.
///
/// The defaults suit a small service behind the App Store's notification sender and an app's
/// clients: few, small requests, so limits are tight.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// Where to listen; port 0 picks a free port.
    public var listenAddress: ListenAddress
    /// Threads that serve connections (each runs handlers for the connections it is given).
    public var workerThreads: Int = HTTPServerConfiguration.defaultWorkerThreads
    /// Most connections open at once, at least `workerThreads`; connections beyond it wait in
    /// the kernel's accept queue until one closes. High, because a connection that sends
    /// nothing costs only its descriptor and a little memory, and one that holds its place by
    /// trickling its headers is cut at `headerDeadlineSeconds`: far more of them than the limit
    /// are needed to keep other clients waiting. Each takes a file descriptor, so the process's
    /// limit on them (`ulimit -n`) must leave room.
    public var connectionLimit: Int = 4096
    /// Most connections one client address may hold at once, 0 for no limit of its own: a
    /// client over it has its new connection closed at once, so one client cannot take every
    /// connection. Off by default, since behind a proxy every client has the proxy's address.
    public var connectionsPerClient: Int = 0
    /// Seconds a connection may stay silent (no byte received or sent) before it is closed:
    /// bounds idle keep-alive connections and clients that stall mid-request. Whole seconds,
    /// at least 1 (libmicrohttpd's unit).
    public var connectionTimeoutSeconds: Int = 30
    /// Seconds a request's body may take to arrive in all, however steadily it trickles: a
    /// client sending a byte now and then stays under the silence timeout, not under this.
    public var bodyDeadlineSeconds: Int = 30
    /// Seconds a connection may wait for a request's headers in all, from when it opened or its
    /// last request ended: bounds clients trickling header lines, which the silence timeout
    /// does not, and idle keep-alive connections as well. Short, since a client sends its
    /// headers at once: a slow one gives its place up soon.
    public var headerDeadlineSeconds: Int = 10
    /// Largest request body accepted, in bytes; a larger one gets 413 without being kept. By
    /// default the largest input that may carry a token, so that whatever `verify` takes as a
    /// line is taken as a body too, and a body with a token one byte too large reaches the
    /// verifier, which says so.
    public var maximumBodyBytes: Int = VerificationPolicy.maximumInputBytes
    /// The certificate and key to serve HTTPS with; nil, the default, serves plain HTTP.
    public var tls: TLSIdentity?

    public init(listenAddress: ListenAddress) {
        self.listenAddress = listenAddress
    }

    /// The highest `connectionLimit`.
    public static let largestConnectionLimit = 65_536

    /// The processors online, at least 2 so that one slow handler never stalls every client,
    /// and at most 64 so that the default connection limit leaves each worker a share.
    public static var defaultWorkerThreads: Int {
        min(64, max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    /// Throws `invalidConfiguration` when a limit is out of range.
    public func validate() throws(HTTPServerError) {
        guard (1...256).contains(workerThreads) else {
            throw .invalidConfiguration("worker threads \(workerThreads) is not in 1…256")
        }
        guard (workerThreads...Self.largestConnectionLimit).contains(connectionLimit) else {
            throw .invalidConfiguration(
                "connection limit \(connectionLimit) is not in \(workerThreads)…\(Self.largestConnectionLimit)")
        }
        guard (0...connectionLimit).contains(connectionsPerClient) else {
            throw .invalidConfiguration("connections per client \(connectionsPerClient) is not in 0…\(connectionLimit)")
        }
        guard (1...86_400).contains(bodyDeadlineSeconds) else {
            throw .invalidConfiguration("body deadline \(bodyDeadlineSeconds) s is not in 1…86400")
        }
        guard (1...86_400).contains(headerDeadlineSeconds) else {
            throw .invalidConfiguration("header deadline \(headerDeadlineSeconds) s is not in 1…86400")
        }
        guard (1...86_400).contains(connectionTimeoutSeconds) else {
            throw .invalidConfiguration("connection timeout \(connectionTimeoutSeconds) s is not in 1…86400")
        }
        guard (0...(16 << 20)).contains(maximumBodyBytes) else {
            throw .invalidConfiguration("maximum body \(maximumBodyBytes) bytes is not in 0…16 MiB")
        }
    }
}
