// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// The binary on a file system that fails it as a real one does (`PrivateMount`): full, or
/// mounted read-only. Each error names the ledger, says the cause in words and what to do.
@Suite struct StorageFaultTests {
    static let sandbox = ExitStatusTests.sandbox

    /// Runs `command` (`PrivateMount`'s command line) in `directory`, reading `input`.
    static func run(_ command: [String], input: Subprocess.Input = .none, in directory: TemporaryDirectory)
        async throws -> ProcessOutput
    {
        try await Subprocess(
            executable: command[0], arguments: Array(command.dropFirst()), environment: Subprocess.baseEnvironment(),
            directory: directory.path, input: input
        ).run()
    }

    @Test(.enabled(if: PrivateMount.isAvailable, "this machine allows no mount namespaces"))
    func aFullDiskNamesTheLedgerAndSaysWhatToDo() async throws {
        let keys = try await SharedInputs.shared.keys()
        let tips = try await SharedInputs.shared.tips()
        try await TemporaryDirectory.with { directory in
            let folder = directory.file("volume")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let verify =
                [try TipLedgerBinary.path(), "verify", "--db", "volume/l.sqlite"]
                + SharedInputs.acceptingTestkit(keys: keys)

            let result = try await Self.run(
                PrivateMount.tmpfs(at: folder, bytes: 1 << 20, running: verify), input: .file(tips.path),
                in: directory)

            #expect(result.exited(74), "\(result.summary)")
            #expect(
                result.errLines == [
                    "error: cannot write the ledger volume/l.sqlite: its file system is full (SQLite code 13) in: COMMIT",
                    "hint: free space on the file system that holds volume/l.sqlite (the -wal file beside it grows "
                        + "with each write), then try again; nothing since the last commit was recorded",
                ])
        }
    }

    /// Every command that writes refuses a ledger on a read-only mount at once, saying so
    /// (SQLite would open it read-only and fail on the -wal file it cannot create); the
    /// commands that read still read it.
    @Test(
        .enabled(if: PrivateMount.isAvailable, "this machine allows no mount namespaces"),
        arguments: [
            ["verify"] + sandbox, ["finish", "1"], ["migrate"], ["serve", "--listen", "127.0.0.1:0"] + sandbox,
        ])
    func aLedgerOnAReadOnlyMountIsRefusedSayingSo(_ arguments: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            let folder = directory.file("volume")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "volume/l.sqlite"], in: directory.path)
            try #require(migrate.exited(0), "\(migrate.summary)")
            let before = try directory.read("volume/l.sqlite")
            let binary = try TipLedgerBinary.path()

            let refused = try await Self.run(
                PrivateMount.readOnly(folder, running: [binary] + arguments + ["--db", "volume/l.sqlite"]),
                input: .text("x\n"), in: directory)
            let report = try await Self.run(
                PrivateMount.readOnly(folder, running: [binary, "report", "--db", "volume/l.sqlite"]), in: directory)

            #expect(refused.exited(74), "\(arguments): \(refused.summary)")
            #expect(
                refused.errLines == [
                    "error: the ledger volume/l.sqlite is on a file system mounted read-only",
                    "hint: remount its file system read-write, or move the ledger to a writable one; "
                        + "report, restore, pending and reverify read it as it is",
                ], "\(arguments)")
            #expect(report.exited(0), "\(report.summary)")
            #expect(try directory.read("volume/l.sqlite") == before)
        }
    }
}
