// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Where the server listens: an IPv4 address (or `localhost`) and a TCP port.
///
/// Port 0 asks the kernel for a free port; `HTTPServer.port` then tells which one it chose.
/// `localhost` means 127.0.0.1 (it is not looked up); `0.0.0.0` listens on every interface.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host as given: dotted IPv4 or `localhost`.
    public let host: String
    public let port: UInt16

    /// An address from its parts; fails when `host` is neither dotted IPv4 nor `localhost`.
    public init(host: String, port: UInt16) throws(HTTPServerError) {
        guard Self.ipv4(host) != nil else { throw .invalidListenAddress("\(host):\(port)") }
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` as given to `--listen` or `TIPLEDGER_LISTEN` (`127.0.0.1:8080`).
    public init(parsing text: String) throws(HTTPServerError) {
        guard let colon = text.lastIndex(of: ":") else { throw .invalidListenAddress(text) }
        let host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = UInt16(portText)
        else { throw .invalidListenAddress(text) }
        guard Self.ipv4(host) != nil else { throw .invalidListenAddress(text) }
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }

    /// The address in network byte order.
    var networkAddress: in_addr {
        // Both initialisers reject a host `ipv4` cannot read, so this cannot fail.
        Self.ipv4(host)!
    }

    /// Calls `body` with this address as a `sockaddr` and its length, for `bind` and `connect`.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr = networkAddress
        return withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    private static func ipv4(_ host: String) -> in_addr? {
        if host == "localhost" { return in_addr(s_addr: UInt32(0x7F00_0001).bigEndian) }
        var address = in_addr()
        // inet_pton accepts exactly four dotted decimal parts for AF_INET (no shorthand forms).
        guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
        return address
    }
}
