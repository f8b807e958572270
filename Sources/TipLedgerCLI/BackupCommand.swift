// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// `tipledger backup PATH`: a consistent copy of the ledger.
struct BackupCommand: Command {
    static let name = "backup"
    static let summary = "write a consistent copy of the ledger, safe while it is in use"
    static let usage = """
        Usage: tipledger backup PATH

        Writes a consistent copy of the ledger to PATH with SQLite's VACUUM INTO, while
        other processes keep reading and writing it. PATH must not exist yet, and exists only
        once the copy is whole: it is written as PATH.partial-... first (a killed backup
        leaves that file behind).

        """

    let destination: String

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        _ = try globals.format(allowing: [.text], command: Self.name)
        let paths = try scanner.remainingPositionals()
        guard paths.count == 1 else { throw CLIError.usage("give exactly one destination PATH", command: Self.name) }
        destination = try FileInput.databaseFile(paths[0], for: "the destination PATH", command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        // lstat: a symbolic link there, even one leading nowhere, is a file there.
        var status = stat()
        if lstat(destination, &status) == 0 {
            throw CLIError(.ioError, "\(destination) already exists", hint: "choose a new file name")
        }
        let ledger = try context.openLedger(.read)
        try ledger.backup(to: destination)
        context.terminal.line("backed up \(context.globals.databasePath) to \(destination)")
        return .success
    }
}
