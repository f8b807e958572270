// SPDX-License-Identifier: GPL-3.0-or-later

/// What the server records about one answered request, for an access log line.
///
/// It deliberately holds no query string, header or body: those can carry tokens and signed
/// payloads. Requests the server never answered (the client went away or timed out first) and
/// requests libmicrohttpd rejected itself before the handler (malformed, headers too large)
/// produce no entry.
public struct AccessLogEntry: Sendable, Equatable {
    /// The request method as sent.
    public let method: String
    /// The request path, without the query string. A log shows `loggedPath` instead.
    public let path: String
    /// The status the server sent (the handler's, or 400/413/500 from the server itself).
    public let status: Int
    /// Whether the handler answered the request. False for the answers the server gives
    /// without calling it: 400 for a body whose framing is ambiguous, 413 for one over the limit.
    public let handled: Bool
    /// Bytes in the response body (not counting the status line and headers).
    public let responseBytes: Int
    /// Bytes of request body received and kept (at most the body limit).
    public let requestBytes: Int
    /// Microseconds from the request's headers arriving to the response being handed to the
    /// kernel (or the connection failing while sending it).
    public let durationMicroseconds: Int64
    /// The client's IP address, without the port.
    public let remoteAddress: String
    /// False when the connection ended before the whole response was sent.
    public let completed: Bool

    public init(
        method: String, path: String, status: Int, handled: Bool, responseBytes: Int, requestBytes: Int,
        durationMicroseconds: Int64, remoteAddress: String, completed: Bool
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.handled = handled
        self.responseBytes = responseBytes
        self.requestBytes = requestBytes
        self.durationMicroseconds = durationMicroseconds
        self.remoteAddress = remoteAddress
        self.completed = completed
    }

    /// The path as a log may show it: accounts and segments longer than any route's masked
    /// (`Route.loggedPath`).
    public var loggedPath: String { Route.loggedPath(path) }
}

/// Receives one entry per answered request, on a worker thread, after the response.
///
/// It runs on the server's threads concurrently with other requests: keep it short (format a
/// line and write it) and thread-safe.
public typealias AccessLogger = @Sendable (AccessLogEntry) -> Void
