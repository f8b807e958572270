// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// What a finished subprocess left behind: how it ended and everything it wrote.
struct ProcessOutput: Sendable {
    /// The exit status, or the signal number when `signaled`.
    let status: Int32
    /// Whether a signal ended the process (then `status` is the signal number).
    let signaled: Bool
    let standardOutput: Data
    let standardError: Data
    /// The complete lines of standard output (a trailing line without a newline is left out).
    let outLines: [String]
    /// The complete lines of standard error.
    let errLines: [String]

    init(status: Int32, signaled: Bool, standardOutput: Data, standardError: Data) {
        self.status = status
        self.signaled = signaled
        self.standardOutput = standardOutput
        self.standardError = standardError
        outLines = Self.completeLines(standardOutput)
        errLines = Self.completeLines(standardError)
    }

    /// Standard output as UTF-8 text.
    var out: String { String(decoding: standardOutput, as: UTF8.self) }

    /// Standard error as UTF-8 text.
    var err: String { String(decoding: standardError, as: UTF8.self) }

    /// Each complete standard output line parsed as a JSON object with Foundation's parser.
    func jsonLines() throws -> [[String: Any]] {
        try outLines.map { try JSONValue.object($0) }
    }

    /// Standard output parsed as one JSON object.
    func json() throws -> [String: Any] {
        try JSONValue.object(standardOutput)
    }

    /// Whether the process exited normally with `code`.
    func exited(_ code: Int32) -> Bool { !signaled && status == code }

    /// A short account of the run for failure messages.
    var summary: String {
        let how = signaled ? "killed by signal \(status)" : "exit status \(status)"
        return "\(how); stderr: \(err.prefix(600)); stdout: \(out.prefix(600))"
    }

    /// The newline-terminated lines of `data` (found with `memchr`: outputs run to megabytes).
    private static func completeLines(_ data: Data) -> [String] {
        data.withUnsafeBytes { bytes -> [String] in
            guard let base = bytes.baseAddress else { return [] }
            var lines: [String] = []
            var start = 0
            while start < bytes.count, let newline = memchr(base + start, 0x0a, bytes.count - start) {
                let end = base.distance(to: UnsafeRawPointer(newline))
                lines.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                start = end + 1
            }
            return lines
        }
    }
}
