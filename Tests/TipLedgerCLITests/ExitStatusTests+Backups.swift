// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore

/// `backup`: refused where it would overwrite or cannot write, with the ledger left as it was;
/// never a partial file left behind, nor another's removed; a backup read stays as it is.
extension ExitStatusTests {
    static let backupHint = "hint: choose a path in an existing directory this user can write"

    static let backupRefusals: [FailingCommand] = [
        FailingCommand(
            name: "onto an existing file", arguments: ["backup", "--db", "l.sqlite", "taken.sqlite"], status: 74,
            message: "taken.sqlite already exists",
            setup: [.migrate("l.sqlite"), .write("keep me", to: "taken.sqlite")],
            afterwards: [.unchanged("taken.sqlite"), .unchanged("l.sqlite")]),
        FailingCommand(
            name: "into a missing directory", arguments: ["backup", "--db", "l.sqlite", "missing/copy.sqlite"],
            status: 74, message: "cannot write the backup to missing/copy.sqlite: no such directory",
            lastLine: backupHint, setup: [.migrate("l.sqlite")],
            afterwards: [.unchanged("l.sqlite"), .absent("missing/copy.sqlite"), .absent("missing")],
            boundByPermissions: true),
    ]

    @Test(arguments: backupRefusals)
    func aBackupThatWouldOverwriteOrCannotWriteExitsWith74(_ command: FailingCommand) async throws {
        try await command.run()
    }

    /// A backup that fails part way (here a file size limit, as a full disk would) leaves
    /// nothing at PATH, nor a file of its own: the next try succeeds.
    @Test func aBackupThatFailsLeavesNoFileBehind() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            // 64 blocks of 512 bytes, under the copy's size; writes past it fail (EFBIG) rather
            // than kill the process, as SIGXFSZ is ignored.
            let limited = try await Subprocess(
                executable: "/bin/sh",
                arguments: [
                    "-c", #"ulimit -f 64; trap '' XFSZ; exec "$0" "$@""#, try TipLedgerBinary.path(), "backup", "--db",
                    "l.sqlite", "copy.sqlite",
                ],
                environment: Subprocess.baseEnvironment(), directory: directory.path, input: .none
            ).run()
            #expect(limited.exited(74), "\(limited.summary)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy") }
                    == [])
            let retry = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            #expect(retry.exited(0), "\(retry.summary)")
            #expect(try Ledger.open(path: directory.file("copy.sqlite")).integrityCheck() == "ok")
        }
    }

    /// Another backup's leftover (or one in progress) beside PATH neither fails this one nor
    /// is removed by it.
    @Test func aBackupLeavesAnotherBackupsPartialFileAlone() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            try directory.write("another backup's", to: "copy.sqlite.partial-1")
            let backup = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            #expect(backup.exited(0), "\(backup.summary)")
            #expect(try directory.read("copy.sqlite.partial-1") == Data("another backup's".utf8))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy") }
                    .sorted()
                    == ["copy.sqlite", "copy.sqlite.partial-1"])
        }
    }

    /// Reading a backup, which keeps SQLite's rollback journal, leaves the file byte for byte
    /// as it was: it is not turned into a write-ahead-log ledger.
    @Test func readingABackupLeavesItAsItIs() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            let backup = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            try #require(backup.exited(0), "\(backup.summary)")
            let before = try directory.read("copy.sqlite")

            for command in [
                ["report"], ["pending"],
                ["reverify"] + SharedInputs.acceptingTestkit(keys: try await SharedInputs.shared.keys()),
            ] {
                let result = try await TipLedgerBinary.run(command + ["--db", "copy.sqlite"], in: directory.path)
                #expect(result.exited(0), "\(command): \(result.summary)")
            }

            #expect(try directory.read("copy.sqlite") == before)
            #expect(try await SQLiteShell.value("copy.sqlite", "PRAGMA journal_mode", in: directory.path) == "delete")
        }
    }

}
