// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Asks a running `tipledger serve` for `/healthz`, for the container's HEALTHCHECK: the runtime
/// image has no curl. Plain HTTP/1.0 over IPv4 to a local address, with a deadline.
public enum HealthProbe {
    /// The HTTP status `GET /healthz` answers at `address`, or nil when nothing answered in time.
    public static func status(of address: ListenAddress, timeoutSeconds: Int = 3) -> Int? {
        answer(of: address, timeoutSeconds: timeoutSeconds)?.status
    }

    /// The most of an answer read: `/healthz` answers a small JSON object.
    static let answerLimit = 4096

    /// The HTTP status and body `GET /healthz` answers at `address` (the body cut at
    /// `answerLimit` bytes), or nil when nothing answered in time.
    public static func answer(of address: ListenAddress, timeoutSeconds: Int = 3) -> (status: Int, body: [UInt8])? {
        // A server listening on every interface is asked on the loopback one.
        let host = address.host == "0.0.0.0" ? "127.0.0.1" : address.host
        guard let target = try? ListenAddress(host: host, port: address.port) else { return nil }
        let descriptor = ListenSocket.makeTCPSocket()
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = setsockopt(descriptor, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        let connected = target.withSocketAddress { connect(descriptor, $0, $1) }
        guard connected == 0 else { return nil }
        let request = Array("GET /healthz HTTP/1.0\r\nHost: \(target)\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            return nil
        }
        // An HTTP/1.0 answer ends when the server closes the connection.
        var answer = [UInt8](repeating: 0, count: answerLimit)
        var received = 0
        while received < answer.count {
            let count = answer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress! + received, $0.count - received, 0)
            }
            if count <= 0 { break }
            received += count
        }
        // The status line: "HTTP/1.1 200 OK".
        let head = answer[..<received]
        let lineEnd = head.firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex
        let words = String(decoding: head[..<lineEnd], as: UTF8.self).split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let status = Int(words[1]) else { return nil }
        // The body follows the blank line that ends the head.
        let blankLine = Array("\r\n\r\n".utf8)
        let headEnd = head.indices.dropLast(blankLine.count - 1).first {
            head[$0..<$0 + blankLine.count].elementsEqual(blankLine)
        }
        return (status, headEnd.map { Array(head[($0 + blankLine.count)...]) } ?? [])
    }
}
