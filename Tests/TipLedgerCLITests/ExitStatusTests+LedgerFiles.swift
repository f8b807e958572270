// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerStore

/// A file named as the ledger that is no ledger this tipledger can use: each command exits with
/// 74, names the file and what is wrong with it, and leaves it as it was.
extension ExitStatusTests {
    static let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    static let damageHint =
        "hint: audit it with tipledger reverify, and restore it from a copy made with tipledger backup (see the README)"

    /// `commands`, each given `--db ledger`, as rows that share everything else.
    static func rows(
        _ commands: [[String]], ledger: String, status: Int32 = 74, message: String, lastLine: String? = nil,
        setup: [FailingCommand.Step], afterwards: [FailingCommand.Check] = []
    ) -> [FailingCommand] {
        commands.map { command in
            FailingCommand(
                name: "\(command[0]) on \(message)", arguments: command + ["--db", ledger], status: status,
                message: message, lastLine: lastLine, setup: setup, afterwards: afterwards)
        }
    }

    static let ledgerFileErrors: [FailingCommand] =
        [
            // A command that only reads does not create the ledger.
            FailingCommand(
                name: "restore from a ledger that does not exist",
                arguments: ["restore", "--db", "missing.sqlite", "--account", account], status: 74,
                message: "no ledger at missing.sqlite", afterwards: [.absent("missing.sqlite")])
        ]
        + rows(
            [["report"], ["migrate"], ["verify"] + sandbox], ledger: "ledgers",
            message: "ledgers is a directory, not a ledger", setup: [.makeDirectory("ledgers")],
            afterwards: [.only([], in: "ledgers")])
        + rows(
            [["report"], ["pending"], ["restore", "--account", account]], ledger: "empty.sqlite",
            message: "empty.sqlite is an empty file, not a ledger", setup: [.write("", to: "empty.sqlite")],
            afterwards: [.unchanged("empty.sqlite")])
        // SQLite would open a pipe or a device, and a command that writes would leave its
        // journal beside it.
        + rows(
            [["report"], ["migrate"], ["verify"] + sandbox], ledger: "pipe.sqlite",
            message: "pipe.sqlite is a named pipe, not a ledger", setup: [.makeNamedPipe("pipe.sqlite")],
            afterwards: [.only(["pipe.sqlite"], in: ".")])
        + rows(
            [["report"], ["verify"] + sandbox], ledger: "/dev/null",
            message: "/dev/null is a character device, not a ledger",
            setup: [])
        // An SQLite database with no schema (an interrupted backup once SQLite rolled it back)
        // is not taken for a new, empty ledger by a command that does not record. `finish` opens
        // it to write, which sets the write-ahead log's flag in the header, and adds nothing.
        + rows(
            [["report"], ["pending"], ["restore", "--account", account]], ledger: "empty.sqlite",
            message: "empty.sqlite is an SQLite database with no ledger in it", setup: [.vacuum("empty.sqlite")],
            afterwards: [.unchanged("empty.sqlite"), noSchema])
        + rows(
            [["finish", "2000000000000001"]], ledger: "empty.sqlite",
            message: "empty.sqlite is an SQLite database with no ledger in it", setup: [.vacuum("empty.sqlite")],
            afterwards: [noSchema])
        + rows(
            [["report"], ["migrate"], ["pending"]], ledger: "l.sqlite",
            message:
                "schema version \(Migration.latestVersion + 1), newer than this tipledger's \(Migration.latestVersion)",
            setup: [.migrate("l.sqlite"), .newerSchema("l.sqlite")],
            afterwards: [.sql("PRAGMA user_version", on: "l.sqlite", is: String(Migration.latestVersion + 1))])
        + rows(
            [["report"], ["migrate"], ["verify"] + sandbox], ledger: "notes.txt",
            message: "notes.txt is not an SQLite database (SQLite code 26)",
            lastLine: "hint: pass --db with the ledger's path",
            setup: [.write("shopping list, not a ledger\n", to: "notes.txt")],
            afterwards: [.unchanged("notes.txt"), .absent("notes.txt-wal"), .absent("notes.txt-shm")])
        + rows(
            [["report"], ["migrate"], ["verify"] + sandbox], ledger: "cut.sqlite",
            message: "the ledger cut.sqlite is damaged: database disk image is malformed (SQLite code 11)",
            lastLine: damageHint, setup: [.cutLedger("cut.sqlite")], afterwards: [.unchanged("cut.sqlite")])
        + [
            // Damage the opening checks do not reach, met by a query, is named as damage too.
            FailingCommand(
                name: "damage found by a query", arguments: ["report", "--db", "l.sqlite"], status: 74, message: "",
                errorLines: [
                    "error: the ledger is damaged: database disk image is malformed (SQLite code 11)", damageHint,
                ],
                setup: [.recordTipAndRefund("l.sqlite"), .overwriteRootPage(of: "transactions", in: "l.sqlite")])
        ]

    /// Neither a schema version nor a table.
    static let noSchema = FailingCommand.Check.sql(
        "SELECT (SELECT user_version FROM pragma_user_version) + count(*) FROM sqlite_schema;", on: "empty.sqlite",
        is: "0")

    @Test(arguments: ledgerFileErrors)
    func aFileThatIsNoUsableLedgerExitsWith74SayingWhy(_ command: FailingCommand) async throws {
        try await command.run()
    }
}
