// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

#if canImport(Glibc)
    internal import Glibc
#endif

extension GlobalOptions {
    /// Opens (and migrates) the ledger at `--db`. Commands that only read refuse to create a
    /// ledger that does not exist, so a mistyped path is an error rather than an empty answer.
    func openLedger(clock: WallClock, mustExist: Bool, busyTimeout: Duration = .seconds(30)) throws -> Ledger {
        if mustExist && databasePath != ":memory:" {
            let hint = "pass --db PATH (or set TIPLEDGER_DB), or record into it first with 'tipledger verify'"
            var status = stat()
            guard stat(databasePath, &status) == 0 else {
                throw CLIError(.ioError, "no ledger at \(databasePath)", hint: hint)
            }
            // SQLite would take an empty file for an empty database and write a schema into it.
            if status.st_size == 0 {
                throw CLIError(.ioError, "\(databasePath) is an empty file, not a ledger", hint: hint)
            }
        }
        return try Ledger.open(path: databasePath, clock: clock, busyTimeout: busyTimeout)
    }
}
