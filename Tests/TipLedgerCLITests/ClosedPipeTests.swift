// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// A reader that went away (`tipledger ... | head -1`) is a failed write: exit 74 with the
/// reason, not a silent death by SIGPIPE; and a long command stops instead of working for nobody.
@Suite struct ClosedPipeTests {
    /// Runs tipledger with standard output into a pipe whose reading end is closed before it
    /// starts, so its first write fails with EPIPE, whatever the timing.
    static func runIntoClosedPipe(_ arguments: [String], input: String? = nil, in directory: String) throws -> (
        status: Int32, errorLines: [String]
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TipLedgerBinary.path())
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = Subprocess.baseEnvironment()
        let output = Pipe()
        try output.fileHandleForReading.close()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        if let input {
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        try output.fileHandleForWriting.close()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text.split(separator: "\n").map(String.init))
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
