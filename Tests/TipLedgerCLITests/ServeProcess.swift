// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `tipledger serve` running on a port of its own choosing, for a test to reach over loopback:
/// started, known ready when it says where it serves, and stopped with SIGTERM.
final class ServeProcess: @unchecked Sendable {
    let process: Process
    /// The port it listens on, from its start-up line.
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts `tipledger serve --listen 127.0.0.1:0` plus `arguments` in `directory` with
    /// `environment` added to the base one; returns once it says it serves.
    static func start(_ arguments: [String], environment: [String: String], in directory: String) async throws
        -> ServeProcess
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TipLedgerBinary.path())
        process.arguments = ["serve", "--listen", "127.0.0.1:0"] + arguments
        process.environment = Subprocess.baseEnvironment().merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reader = errors.fileHandleForReading
        let port: Int = try await withCheckedThrowingContinuation { continuation in
            // Reads its standard error to the end, so it never blocks on a full pipe; the first
            // line saying where it serves gives the port.
            Thread {
                var said = ""
                var resumed = false
                while true {
                    let data = reader.availableData
                    if data.isEmpty { break }
                    said += String(decoding: data, as: UTF8.self)
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
        return ServeProcess(process: process, port: port)
    }

    /// Asks it to stop (SIGTERM) and returns its exit status.
    func stop() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }
}
