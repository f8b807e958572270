// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Testing
import TipLedgerTestSupport

/// verify reading from a producer that pauses (a pipe from another program, a terminal): what
/// it has read is answered, and the ledger left free for other writers, while it waits.
@Suite struct SlowInputTests {
    @Test func whileTheInputPausesEveryLineReadIsAnsweredAndTheLedgerIsFree() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let input = Pipe()
            let output = Pipe()
            let process = try TipLedgerBinary.start(
                ["verify", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys), in: directory.path,
                input: input, output: output)
            defer { if process.waitForExit(timeout: .zero) == nil { process.send(SIGTERM) } }

            // 300 lines, more than the first batch and fewer than a commit's worth, then the
            // first half of the next one (as a pipe may deliver a long line in parts), then a
            // pause, in the middle of a line. The answers must not wait for the rest of it.
            let first = 300
            let next = Array(tips.lines[first].utf8)
            let writer = input.fileHandleForWriting
            let written = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                writer.write(Data((tips.lines[..<first].joined(separator: "\n") + "\n").utf8))
                writer.write(Data(next[..<(next.count / 2)]))
                written.signal()
            }
            let answered = try Self.readLines(first, from: output.fileHandleForReading)
            written.wait()

            #expect(answered.count == first)
            #expect(answered.allSatisfy { $0.contains(" recorded ") }, "\(answered.prefix(3))")
            // Another writer gets the ledger at once (the sqlite3 shell does not wait for a lock),
            // and finds the answered lines committed.
            let other = try await SQLiteShell.rows(
                "l.sqlite", "BEGIN IMMEDIATE; SELECT count(*) FROM transactions; ROLLBACK;", in: directory.path)
            #expect(other == [String(first)])

            writer.write(Data(next[(next.count / 2)...]))
            writer.write(Data(("\n" + tips.lines[(first + 1)..<(first + 10)].joined(separator: "\n") + "\n").utf8))
            try writer.close()
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let ending = process.waitForExit()

            #expect(ending?.status == 0 && ending?.signaled == false)
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
