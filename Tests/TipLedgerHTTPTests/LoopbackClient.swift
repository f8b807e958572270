// SPDX-License-Identifier: GPL-3.0-or-later
import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a loopback exchange failed.
enum LoopbackError: Error, Equatable {
    /// `connect` failed; carries errno (`ECONNREFUSED` when nothing listens).
    case connectFailed(Int32)
    /// `send` failed; carries errno (`EPIPE`, `ECONNRESET` once the server closed).
    case sendFailed(Int32)
    /// The server closed the connection before a whole response arrived.
    case closedEarly
    /// No byte arrived within the receive timeout.
    case timedOut
    /// `recv` failed; carries errno.
    case receiveFailed(Int32)
    /// The bytes received are not an HTTP/1.1 response.
    case malformed(String)
}

/// One parsed HTTP response as the client saw it.
struct LoopbackResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP/1.1 client over one TCP connection to 127.0.0.1, written on raw sockets so
/// tests control every byte and every pause (partial headers, oversized bodies, stalls).
///
/// Every read has a receive timeout, so a test waits for a condition for a bounded time and
/// never sleeps. Not thread-safe: one thread per connection.
final class LoopbackConnection {
    private var descriptor: Int32
    /// Bytes received but not yet consumed by a parsed response.
    private var pending: [UInt8] = []

    /// Connects to `port` on 127.0.0.1, from `source` (another loopback address such as
    /// 127.0.0.2, for a second client) or the kernel's choice; each later read waits at most
    /// `receiveTimeout`.
    /// How long a read waits unless a test says otherwise: long, since it only bounds a wait for
    /// something that is bound to come (an answer, a close) on a machine that may be busy.
    static let defaultReceiveTimeout = Duration.seconds(30)

    init(
        port: UInt16, receiveTimeout: Duration = defaultReceiveTimeout, from source: String? = nil
    ) throws(LoopbackError) {
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, type, 0)
        guard descriptor >= 0 else { throw .connectFailed(errno) }
        /// `call` (bind or connect) on `host:port`; closes the socket when it fails.
        func attach(
            _ call: (Int32, UnsafePointer<sockaddr>?, socklen_t) -> Int32, _ host: String, _ port: UInt16
        ) throws(LoopbackError) {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            let parsed = inet_pton(AF_INET, host, &address.sin_addr) == 1
            let result =
                parsed
                ? withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        call(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                } : -1
            guard result == 0 else {
                let code = parsed ? errno : EINVAL
                _ = Glibc.close(descriptor)
                throw .connectFailed(code)
            }
        }
        if let source { try attach(bind, source, 0) }
        try attach(connect, "127.0.0.1", port)
        self.descriptor = descriptor
        setReceiveTimeout(receiveTimeout)
    }

    deinit {
        close()
    }

    /// Closes the connection (the server sees end of input); later calls do nothing.
    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    /// Changes how long each read waits before failing with `.timedOut`.
    func setReceiveTimeout(_ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends every byte; MSG_NOSIGNAL turns a write to a closed connection into EPIPE.
    func send(_ bytes: [UInt8]) throws(LoopbackError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .sendFailed(errno)
            }
            offset += sent
        }
    }

    func send(_ text: String) throws(LoopbackError) {
        try send(Array(text.utf8))
    }

    /// Sends a request with `Content-Length` set from `body` (none for an empty GET).
    func sendRequest(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws(LoopbackError) {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
    }

    /// Sends a request and reads its response.
    func exchange(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws(LoopbackError) -> LoopbackResponse {
        try sendRequest(method, target, headers: headers, body: body)
        return try readResponse()
    }

    /// Reads one response: status line, headers, then a `Content-Length` body (or, without
    /// one, everything until the server closes). A 1xx interim response has no body.
    func readResponse() throws(LoopbackError) -> LoopbackResponse {
        let head = try readResponseHead()
        if (100..<200).contains(head.status) { return head }
        if let lengthText = head.headers["Content-Length"] {
            guard let length = Int(lengthText) else { throw .malformed("Content-Length: \(lengthText)") }
            while pending.count < length { try receiveMore() }
            let body = Array(pending[..<length])
            pending.removeFirst(length)
            return LoopbackResponse(status: head.status, headers: head.headers, body: body)
        }
        while true {
            do throws(LoopbackError) { try receiveMore() } catch .closedEarly { break }
        }
        defer { pending.removeAll() }
        return LoopbackResponse(status: head.status, headers: head.headers, body: pending)
    }

    /// Reads a status line and headers only (for HEAD, whose `Content-Length` has no body).
    func readResponseHead() throws(LoopbackError) -> LoopbackResponse {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let head = String(decoding: pending[..<headEnd], as: UTF8.self)
        pending.removeFirst(headEnd + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .malformed(statusLine)
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed(line) }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.add(String(line[..<colon]), String(value))
        }
        return LoopbackResponse(status: status, headers: headers, body: [])
    }

    /// Waits (up to the receive timeout) for the server to close the connection, ignoring any
    /// bytes it sends first. True when it closed or reset; false when it timed out.
    func waitForClose() -> Bool {
        while true {
            do throws(LoopbackError) {
                try receiveMore()
            } catch .closedEarly {
                return true
            } catch .receiveFailed(let code) {
                return code == ECONNRESET
            } catch {
                return false
            }
        }
    }

    /// What the server did within the receive timeout.
    enum Probe: Equatable {
        case nothing
        case closed
        case data
    }

    /// Waits up to the receive timeout for a byte or the close.
    func probe() -> Probe {
        do throws(LoopbackError) {
            try receiveMore()
            return .data
        } catch .timedOut {
            return .nothing
        } catch {
            return .closed
        }
    }

    /// Reads until `marker` is buffered; returns its offset in `pending`.
    private func readUntil(_ marker: [UInt8]) throws(LoopbackError) -> Int {
        var searchFrom = 0
        while true {
            if pending.count >= marker.count {
                for start in searchFrom...(pending.count - marker.count)
                where pending[start..<(start + marker.count)].elementsEqual(marker) {
                    return start
                }
                searchFrom = pending.count - marker.count + 1
            }
            try receiveMore()
        }
    }

    private func receiveMore() throws(LoopbackError) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                pending.append(contentsOf: buffer[..<received])
                return
            }
            if received == 0 { throw .closedEarly }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw .timedOut
            default: throw .receiveFailed(errno)
            }
        }
    }
}
