// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore

/// Ledgers and directories this user may not write or read: a command that needs to write says
/// which and changes nothing; one that only reads reads and leaves no file of this user's.
extension ExitStatusTests {
    static let unwritableHint =
        "run tipledger as the ledger's owner, or let this user write it; report, restore, pending and reverify only read it"
    static let readOnlyDirectoryHint =
        "make the ledger and its directory writable by this user (SQLite creates the -wal and -shm files beside the ledger)"

    /// `command` on ledger/l.sqlite (a fresh ledger, or an empty file) with these modes.
    static func readOnly(
        _ name: String, directory: Int, file: Int, empty: Bool = false, command: [String], message: String,
        hint: String = readOnlyDirectoryHint
    ) -> FailingCommand {
        FailingCommand(
            name: name, arguments: command + ["--db", "ledger/l.sqlite"], status: 74, message: message,
            lastLine: "hint: \(hint)",
            setup: [
                .makeDirectory("ledger"), empty ? .write("", to: "ledger/l.sqlite") : .migrate("ledger/l.sqlite"),
                .chmod("ledger/l.sqlite", file), .chmod("ledger", directory),
            ],
            afterwards: [.unchanged("ledger/l.sqlite"), .only(["l.sqlite"], in: "ledger")], boundByPermissions: true)
    }

    static let permissionErrors: [FailingCommand] = [
        readOnly(
            "read-only directory, to write", directory: 0o555, file: 0o644, command: ["finish", "2000000000000001"],
            message: "the directory of the ledger ledger/l.sqlite is read-only (SQLite code 1544)"),
        readOnly(
            "read-only ledger in a read-only directory, to write", directory: 0o555, file: 0o444,
            command: ["finish", "2000000000000001"],
            message: "the ledger ledger/l.sqlite and its directory are read-only (SQLite code 1544)"),
        readOnly(
            "read-only empty ledger, to set up", directory: 0o755, file: 0o444, empty: true, command: ["migrate"],
            message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        // SQLite would open these read-only and leave -wal and -shm files of this user's beside
        // them, which the owner could not write.
        readOnly(
            "read-only ledger in a writable directory, to migrate", directory: 0o755, file: 0o444,
            command: ["migrate"], message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        readOnly(
            "read-only ledger in a writable directory, to finish", directory: 0o755, file: 0o444,
            command: ["finish", "2000000000000001"], message: "this user may not write the ledger ledger/l.sqlite",
            hint: unwritableHint),
        readOnly(
            "read-only ledger in a writable directory, to record", directory: 0o777, file: 0o444,
            command: ["verify", "--bundle-id", "com.example.tipjar", "--environment", "Sandbox"],
            message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        readOnly(
            "read-only ledger in a writable directory, to serve", directory: 0o755, file: 0o444,
            command: [
                "serve", "--bundle-id", "com.example.tipjar", "--environment", "Sandbox", "--listen",
                "203.0.113.1:18080",
            ],
            message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        readOnly(
            "unreadable ledger", directory: 0o755, file: 0o000, command: ["report"],
            message: "this user may not read the ledger ledger/l.sqlite (SQLite code 14)",
            hint: "run tipledger as the ledger's owner, or let this user read it"),
        // Reading it would make the -shm file, this user's, which would keep the owner from
        // writing.
        FailingCommand(
            name: "a read-only ledger with a -wal file but no -shm file", arguments: ["report", "--db", "l.sqlite"],
            status: 74, message: "the ledger l.sqlite has a -wal file but no -shm file this user can read",
            setup: [.migrate("l.sqlite"), .write("", to: "l.sqlite-wal"), .chmod("l.sqlite", 0o444)],
            afterwards: [.absent("l.sqlite-shm")], boundByPermissions: true),
        FailingCommand(
            name: "a backup into a directory this user cannot write",
            arguments: ["backup", "--db", "l.sqlite", "locked/copy.sqlite"], status: 74,
            message: "cannot write the backup to locked/copy.sqlite: the directory is not writable by this user",
            lastLine: backupHint, setup: [.migrate("l.sqlite"), .makeDirectory("locked"), .chmod("locked", 0o555)],
            afterwards: [.unchanged("l.sqlite"), .absent("locked/copy.sqlite")], boundByPermissions: true),
    ]

    @Test(
        .enabled(if: permissionsBind, "running as root without setpriv(1) to give up root's right to write anywhere"),
        arguments: permissionErrors)
    func aLedgerOrDirectoryThisUserMayNotWriteExitsWith74SayingWhich(_ command: FailingCommand) async throws {
        try await command.run()
    }

    /// A ledger this user may not write, as an auditor may be given one.
    enum ReadOnlyCopy: String, CaseIterable, Sendable {
        /// A ledger in write-ahead-log mode, read-only, in a directory this user may write.
        case readOnlyFile
        /// The same in a read-only directory.
        case readOnlyDirectory
        /// A backup (rollback journal), read-only, in a read-only directory.
        case backupInReadOnlyDirectory
    }

    /// The commands that only read a ledger read one this user may not write, leave it as it
    /// is, and make no file beside it (files of this user there would keep the ledger's owner
    /// from writing it).
    @Test(.enabled(if: permissionsBind, "running as root without setpriv(1)"), arguments: ReadOnlyCopy.allCases)
    func aLedgerThisUserMayNotWriteIsRead(_ copy: ReadOnlyCopy) async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            let folder = directory.file("ledger")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            if copy == .backupInReadOnlyDirectory {
                let backup = try await TipLedgerBinary.run(
                    ["backup", "--db", "l.sqlite", "ledger/l.sqlite"], in: directory.path)
                try #require(backup.exited(0), "\(backup.summary)")
            } else {
                try FileManager.default.copyItem(atPath: directory.file("l.sqlite"), toPath: folder + "/l.sqlite")
            }
            let files = FileManager.default
            try files.setAttributes([.posixPermissions: 0o444], ofItemAtPath: folder + "/l.sqlite")
            if copy != .readOnlyFile {
                try files.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            }
            defer { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            let before = try directory.read("ledger/l.sqlite")

            let report = try await Self.runBoundByPermissions(
                ["report", "--db", "ledger/l.sqlite", "--format", "json"], in: directory.path)
            let pending = try await Self.runBoundByPermissions(
                ["pending", "--db", "ledger/l.sqlite"], in: directory.path)
            let backup = try await Self.runBoundByPermissions(
                ["backup", "--db", "ledger/l.sqlite", "copy.sqlite"], in: directory.path)

            #expect(report.exited(0), "\(report.summary)")
            let rows = try #require(try report.jsonLines().first?["rows"] as? [[String: Any]])
            #expect(rows.contains { (JSONValue.int64($0["refunded_milli"]) ?? 0) > 0 }, "\(rows)")
            #expect(pending.exited(0), "\(pending.summary)")
            // SQLite 3.40's VACUUM INTO fails on a read-only connection to these tables.
            #expect(backup.exited(74), "\(backup.summary)")
            Self.expectErrorLines(
                backup, containing: "cannot back up ledger/l.sqlite: this user may not write it or its directory",
                hint: true)
            #expect(try directory.read("ledger/l.sqlite") == before, "the ledger is left as it was")
            #expect(try files.contentsOfDirectory(atPath: folder) == ["l.sqlite"])
        }
    }

    /// A ledger reached through a symbolic link is written where the link leads: one in a
    /// read-only directory, leading to a ledger this user may write, is backed up.
    @Test(.enabled(if: permissionsBind, "running as root without setpriv(1)"))
    func aLedgerReachedThroughALinkInAReadOnlyDirectoryIsBackedUp() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            let links = directory.file("links")
            let files = FileManager.default
            try files.createDirectory(atPath: links, withIntermediateDirectories: false)
            try files.createSymbolicLink(atPath: links + "/l.sqlite", withDestinationPath: "../l.sqlite")
            try files.setAttributes([.posixPermissions: 0o555], ofItemAtPath: links)
            defer { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: links) }

            let backup = try await Self.runBoundByPermissions(
                ["backup", "--db", "links/l.sqlite", "copy.sqlite"], in: directory.path)

            #expect(backup.exited(0), "\(backup.summary)")
            #expect(try Ledger.open(path: directory.file("copy.sqlite")).integrityCheck() == "ok")
        }
    }

    /// setpriv(1), which runs a program without the capabilities that let root write anywhere.
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether file permissions bind the binary as `runBoundByPermissions` runs it.
    static let permissionsBind = geteuid() != 0 || setpriv != nil

    /// Runs the binary so that file permissions bind it. Root writes anywhere through the
    /// capabilities CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH; as root, the binary runs under
    /// setpriv without them (and unable to regain them), still as root, so the owner's mode
    /// bits apply to it as to any other user's own files. Root without setpriv runs it as it
    /// is: a test that needs the permissions to bind is enabled only if `permissionsBind`.
    static func runBoundByPermissions(_ arguments: [String], in directory: String) async throws -> ProcessOutput {
        guard geteuid() == 0, let setpriv else { return try await TipLedgerBinary.run(arguments, in: directory) }
        let capabilities = "-dac_override,-dac_read_search"
        let command = [
            "--inh-caps=\(capabilities)", "--bounding-set=\(capabilities)", "--", try TipLedgerBinary.path(),
        ]
        return try await Subprocess(
            executable: setpriv, arguments: command + arguments, environment: Subprocess.baseEnvironment(),
            directory: directory
        ).run()
    }
}
