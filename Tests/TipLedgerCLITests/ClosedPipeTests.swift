// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// A reader that went away (`tipledger ... | head -1`) is a failed write: exit 74 with the
/// reason, not a silent death by SIGPIPE; and a long command stops instead of working for nobody.
@Suite struct ClosedPipeTests {
    /// Runs tipledger with standard output into a pipe whose reading end is closed before it
    /// starts, so its first write fails with EPIPE, whatever the timing.
    static func runIntoClosedPipe(_ arguments: [String], input: String? = nil, in directory: String) throws -> (
        status: Int32, errorLines: [String]
    ) {
        let output = Pipe()
        try output.fileHandleForReading.close()
        let errors = Pipe()
        let standardInput = open(input ?? "/dev/null", O_RDONLY | O_CLOEXEC)
        guard standardInput >= 0 else { throw SubprocessError.cannotOpen(input ?? "/dev/null") }
        defer { close(standardInput) }
        let child = try ChildProcess(
            executable: try TipLedgerBinary.path(), arguments: arguments, environment: Subprocess.baseEnvironment(),
            directory: directory, standardInput: standardInput,
            standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: errors.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let ending = child.waitForExit()
        return (ending?.signaled == false ? ending?.status ?? -1 : -1, text.split(separator: "\n").map(String.init))
    }

    @Test func aReportIntoAClosedPipeExitsWith74() async throws {
        try await TemporaryDirectory.with { directory in
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "l.sqlite"], in: directory.path)
            try #require(migrate.exited(0), "\(migrate.summary)")

            let result = try Self.runIntoClosedPipe(["report", "--db", "l.sqlite"], in: directory.path)

            #expect(result.status == 74)
            #expect(result.errorLines == ["error: cannot write standard output: Broken pipe"])
        }
    }

    /// verify stops at the first commit whose results nobody read, and that commit stays
    /// recorded. With a commit at every batch, that is the first batch (128 lines).
    @Test func verifyStopsWhenItsOutputIsLost() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let input = try directory.write(tips.lines.joined(separator: "\n") + "\n", to: "tips.txt")

            let result = try Self.runIntoClosedPipe(
                ["verify", "--db", "l.sqlite", "--commit-every", "1"] + SharedInputs.acceptingTestkit(keys: keys),
                input: input, in: directory.path)

            #expect(result.status == 74)
            #expect(result.errorLines == ["error: cannot write standard output: Broken pipe"])
            let recorded = try #require(
                Int(try await SQLiteShell.value("l.sqlite", "SELECT count(*) FROM transactions", in: directory.path)))
            #expect(recorded == 128, "\(recorded) recorded")
        }
    }

    /// testkit stops signing after the first chunk nobody read, however many were asked for.
    @Test func testkitStopsSigningWhenItsOutputIsLost() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let result = try Self.runIntoClosedPipe(
                ["testkit", "transaction", "--keys", keys, "--count", "100000000"], in: directory.path)

            #expect(result.status == 74)
            #expect(result.errorLines.last == "error: cannot write standard output: Broken pipe")
        }
    }
}
