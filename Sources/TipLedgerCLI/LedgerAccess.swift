// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

#if canImport(Glibc)
    internal import Glibc
#endif

/// What a command does with the ledger at `--db`.
enum LedgerUse {
    /// Reads it: a ledger that does not exist is refused, so a mistyped path is an error rather
    /// than an empty answer, and the file is left as it is but for pending migrations (a backup
    /// keeps its journal mode; a file this user may not write is opened read-only).
    case read
    /// Changes an existing ledger (`finish`).
    case update
    /// Records into it, creating it when missing.
    case record
}

extension CommandContext {
    /// Opens (and migrates) the ledger at `--db` for `use`; one it creates gets `pages`.
    func openLedger(
        _ use: LedgerUse, busyTimeout: Duration = .seconds(30), logBound: Int? = nil,
        pages: NewLedgerPages = .forBatches
    ) throws -> Ledger {
        let path = globals.databasePath
        if use != .record && path != ":memory:" {
            let hint = "pass --db PATH (or set TIPLEDGER_DB), or record into it first with 'tipledger verify'"
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw CLIError(.ioError, "no ledger at \(path)", hint: hint)
            }
            // SQLite would take an empty file for an empty database and write a schema into it.
            // (A device or a pipe, also of no size, the store refuses as what it is.)
            if status.st_mode & S_IFMT == S_IFREG && status.st_size == 0 {
                throw CLIError(.ioError, "\(path) is an empty file, not a ledger", hint: hint)
            }
        }
        return try Ledger.open(
            path: path, clock: clock, busyTimeout: busyTimeout, reading: use == .read, creating: use == .record,
            replicated: globals.replicated, logBound: logBound, pages: pages, upgrading: announceUpgrade)
    }

    /// Says on standard error that the ledger's schema is being upgraded, which rewrites
    /// tables and takes a while for a large ledger (docs/performance.md).
    func announceUpgrade(from: Int, to: Int) {
        terminal.errorLine(
            "upgrading the ledger \(globals.databasePath) from schema version \(from) to \(to); "
                + "a large ledger takes a while")
    }
}
