// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `tipledger serve` running on a port of its own choosing, for a test to reach over loopback:
/// started, known ready when it says where it serves, and stopped with SIGTERM.
final class ServeProcess: Sendable {
    let child: ChildProcess
    /// The port it listens on, from its start-up line.
    let port: Int

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    /// Starts `tipledger serve --listen 127.0.0.1:0` plus `arguments` in `directory` with
    /// `environment` added to the base one; returns once it says it serves.
    static func start(_ arguments: [String], environment: [String: String], in directory: String) async throws
        -> ServeProcess
    {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChromiumError("no pipe for serve: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (reader, writer) = (ends[0], ends[1])
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        let child: ChildProcess
        do {
            defer { for descriptor in [writer, null] { close(descriptor) } }
            child = try ChildProcess(
                executable: try TipLedgerBinary.path(), arguments: ["serve", "--listen", "127.0.0.1:0"] + arguments,
                environment: Subprocess.baseEnvironment().merging(environment) { $1 }, directory: directory,
                standardInput: null, standardOutput: null, standardError: writer)
        } catch {
            close(reader)
            throw error
        }
        let port: Int = try await withCheckedThrowingContinuation { continuation in
            // Reads its standard error to the end, so it never blocks on a full pipe; the first
            // line saying where it serves gives the port.
            Thread {
                defer { close(reader) }
                var said = ""
                var resumed = false
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(reader, &buffer, buffer.count)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    said += String(decoding: buffer[..<count], as: UTF8.self)
                    guard !resumed, let range = said.range(of: "serving http://127.0.0.1:") else { continue }
                    let digits = said[range.upperBound...].prefix { $0.isNumber }
                    if let port = Int(digits), said[range.upperBound...].dropFirst(digits.count).first == " " {
                        resumed = true
                        continuation.resume(returning: port)
                    }
                }
                if !resumed {
                    continuation.resume(throwing: ChromiumError("serve ended before serving: \(said.prefix(600))"))
                }
            }.start()
        }
        return ServeProcess(child: child, port: port)
    }

    /// Asks it to stop (SIGTERM) and returns its exit status.
    func stop() -> Int32 {
        child.send(SIGTERM)
        return child.waitForExit()?.status ?? -1
    }
}
