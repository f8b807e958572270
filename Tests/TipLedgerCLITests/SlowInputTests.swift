// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Testing

/// verify reading from a producer that pauses (a pipe from another program, a terminal): what
/// it has read is answered, and the ledger left free for other writers, while it waits.
@Suite struct SlowInputTests {
    @Test func whileTheInputPausesEveryLineReadIsAnsweredAndTheLedgerIsFree() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try TipLedgerBinary.path())
            process.arguments = ["verify", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys)
            process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
            process.environment = Subprocess.baseEnvironment()
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }

            // 300 lines: more than the first batch, fewer than a commit's worth; then a pause.
            let first = 300
            input.fileHandleForWriting.write(Data((tips.lines[..<first].joined(separator: "\n") + "\n").utf8))
            let answered = try Self.readLines(first, from: output.fileHandleForReading)

            #expect(answered.count == first)
            #expect(answered.allSatisfy { $0.contains(" recorded ") }, "\(answered.prefix(3))")
            // Another writer gets the ledger at once (the sqlite3 shell does not wait for a lock),
            // and finds the answered lines committed.
            let other = try await SQLiteShell.rows(
                "l.sqlite", "BEGIN IMMEDIATE; SELECT count(*) FROM transactions; ROLLBACK;", in: directory.path)
            #expect(other == [String(first)])

            input.fileHandleForWriting.write(
                Data((tips.lines[first..<(first + 10)].joined(separator: "\n") + "\n").utf8))
            try input.fileHandleForWriting.close()
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()

            #expect(process.terminationStatus == 0)
            #expect(rest.split(separator: "\n").last == "\(first + 10) lines: \(first + 10) accepted, 0 rejected")
        }
    }

    /// Reads until `count` lines came, giving up (with what came) after a minute: a guard
    /// against hanging the suite, not a speed limit.
    static func readLines(_ count: Int, from handle: FileHandle) throws -> [String] {
        let done = DispatchSemaphore(value: 0)
        let received = LockedText()
        DispatchQueue.global().async {
            while received.lineCount < count {
                let data = handle.availableData
                if data.isEmpty { break }
                received.append(data)
            }
            done.signal()
        }
        if done.wait(timeout: .now() + 60) == .timedOut {
            Issue.record("only \(received.lineCount) of \(count) lines were answered while the input paused")
        }
        return received.lines
    }
}

/// Text appended by one thread and read by another.
private final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""

    func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
    var lines: [String] { lock.withLock { text.split(separator: "\n").map(String.init) } }
    var lineCount: Int { lock.withLock { text.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } } }
}
