// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Why the HTTP server could not start: a stable `code` for scripts and a `description` for people.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listen address is not `HOST:PORT` with an IPv4 address or `localhost` and a port in
    /// 0…65535; carries the text given.
    case invalidListenAddress(String)
    /// A configuration value is out of range; carries which one and why.
    case invalidConfiguration(String)
    /// The socket could not be created, bound or put into listening state; carries the address
    /// and the `errno` of the failing call (`EADDRINUSE`, `EACCES`, …).
    case cannotListen(address: String, errno: Int32)
    /// libmicrohttpd refused to start (out of threads or descriptors, or an unsupported option).
    case daemonStartFailed(address: String)

    /// A stable snake_case name for the failure.
    public var code: String {
        switch self {
        case .invalidListenAddress: "invalid_listen_address"
        case .invalidConfiguration: "invalid_configuration"
        case .cannotListen: "cannot_listen"
        case .daemonStartFailed: "daemon_start_failed"
        }
    }

    public var description: String {
        switch self {
        case .invalidListenAddress(let text):
            "invalid listen address '\(text)': expected HOST:PORT with an IPv4 address or localhost"
        case .invalidConfiguration(let reason):
            "invalid HTTP server configuration: \(reason)"
        case .cannotListen(let address, let code):
            "cannot listen on \(address): \(String(cString: strerror(code)))"
        case .daemonStartFailed(let address):
            "libmicrohttpd could not start serving \(address)"
        }
    }
}
