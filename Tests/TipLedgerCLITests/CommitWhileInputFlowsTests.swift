// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization
import Testing
import TipLedgerTestSupport

@testable import TipLedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

/// verify commits what it recorded, and prints the results, while its input keeps coming: once
/// 8192 lines wait (the default `--commit-every`), or a second after the first of them waits,
/// whatever `--commit-every` says. It never holds results until the input ends or pauses.
@Suite struct CommitWhileInputFlowsTests {
    /// fcntl(2)'s `F_SETPIPE_SZ` (Linux's `F_LINUX_SPECIFIC_BASE + 7`), which Glibc declares only
    /// under `_GNU_SOURCE`.
    static let setPipeSize: Int32 = 1031

    /// Without the option, a commit holds at most 8192 lines (and the batch that reached them).
    @Test func aCommitHolds8192LinesUnlessToldOtherwise() throws {
        func linesPerCommit(_ options: [String]) throws -> Int {
            var scanner = ArgumentScanner(options)
            let globals = try GlobalOptions(scanner: &scanner, environment: [:])
            return try VerifyCommand(parsing: &scanner, globals: globals).linesPerCommit
        }

        #expect(try linesPerCommit([]) == 8192)
        #expect(try linesPerCommit(["--commit-every", "100"]) == 100)
    }

    /// The real binary, fed signed tips without a pause (the shared tips over and over) until
    /// its first result comes: that result comes while the input is still open. With
    /// `--commit-every 1000000`, more lines than it is fed, only the second's wait can have
    /// ended the commit.
    @Test(arguments: [[], ["--commit-every", "1000000"]])
    func resultsAreCommittedAndPrintedWhileTheInputKeepsComing(_ options: [String]) async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let input = Pipe()
            let output = Pipe()
            // A pipe of a megabyte (Linux's largest without privileges) holds a few hundred
            // tips, so the producer keeps verify fed even when it is scheduled out for a moment.
            _ = fcntl(input.fileHandleForWriting.fileDescriptor, Self.setPipeSize, 1 << 20)
            let process = try TipLedgerBinary.start(
                ["verify", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys) + options,
                in: directory.path, input: input, output: output)
            defer { if process.waitForExit(timeout: .zero) == nil { process.send(SIGTERM) } }

            let flow = InputFlow(lines: tips.lines, bound: 200_000, writer: input.fileHandleForWriting)
            let results = ResultLines(reading: output.fileHandleForReading, flow: flow)
            flow.start()
            let printed = results.waitForFirst()
            // Every result printed is committed already: as many transactions (the first
            // tips are all new) are in the ledger at least.
            let committed = try await SQLiteShell.value(
                "l.sqlite", "SELECT count(*) FROM transactions", in: directory.path)
            let written = flow.waitUntilClosed()
            let rest = results.waitForEnd()
            let ending = process.waitForExit()

            #expect(results.cameWhileInputOpen, "the first result came only once the input had ended")
            #expect(written < 200_000, "the producer wrote all it could before any result came")
            #expect(
                (Int(committed) ?? 0) >= min(printed, tips.lines.count), "\(committed) committed, \(printed) printed")
            #expect(ending?.status == 0 && ending?.signaled == false)
            #expect(rest.last == "\(written) lines: \(written) accepted, 0 rejected")
        }
    }
}

/// Writes lines to a pipe as fast as it takes them, on a thread of its own, over and over,
/// until told to stop or `bound` lines are written; then closes the pipe.
private final class InputFlow: @unchecked Sendable {
    private let lines: [Data]
    private let bound: Int
    private let writer: FileHandle
    private let stopped = Atomic<Bool>(false)
    private let isOpen = Atomic<Bool>(true)
    private let closed = DispatchSemaphore(value: 0)
    /// Written only by the producer thread, read after `closed`.
    private var written = 0

    init(lines: [String], bound: Int, writer: FileHandle) {
        self.lines = lines.map { Data(($0 + "\n").utf8) }
        self.bound = bound
        self.writer = writer
    }

    /// Whether the pipe is still open.
    var inputIsOpen: Bool { isOpen.load(ordering: .acquiring) }

    func start() {
        Thread { [self] in
            while written < bound && !stopped.load(ordering: .acquiring) {
                // A verify that stopped reading ends the flow (the write fails with EPIPE).
                guard (try? writer.write(contentsOf: lines[written % lines.count])) != nil else { break }
                written += 1
            }
            isOpen.store(false, ordering: .releasing)
            try? writer.close()
            closed.signal()
        }.start()
    }

    /// Asks the producer to stop and close the pipe after the line it is writing.
    func stop() { stopped.store(true, ordering: .releasing) }

    /// Waits for the pipe to be closed; the lines written.
    func waitUntilClosed() -> Int {
        closed.wait()
        return written
    }
}

/// The result lines of a child's standard output, read on a thread of its own; notes whether
/// the first came while `flow` still had the input open, and then stops `flow`.
private final class ResultLines: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    private var firstCameWhileOpen: Bool?
    private let first = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(reading handle: FileHandle, flow: InputFlow) {
        Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                let isFirst = lock.withLock {
                    text += String(decoding: data, as: UTF8.self)
                    guard firstCameWhileOpen == nil, text.contains("\n") else { return false }
                    firstCameWhileOpen = flow.inputIsOpen
                    return true
                }
                if isFirst {
                    flow.stop()
                    first.signal()
                }
            }
            first.signal()
            ended.signal()
        }.start()
    }

    var cameWhileInputOpen: Bool { lock.withLock { firstCameWhileOpen ?? false } }

    /// Waits for the first line (or the end of the output); the lines come so far.
    func waitForFirst() -> Int {
        first.wait()
        return lock.withLock { text.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } }
    }

    /// Waits for the end of the output; every line.
    func waitForEnd() -> [String] {
        ended.wait()
        return lock.withLock { text.split(separator: "\n").map(String.init) }
    }
}
