// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore
internal import TipLedgerStore

extension GlobalOptions {
    /// Opens (and migrates) the ledger at `--db`. Commands that only read refuse to create a
    /// ledger that does not exist, so a mistyped path is an error rather than an empty answer.
    func openLedger(clock: WallClock, mustExist: Bool, busyTimeout: Duration = .seconds(30)) throws -> Ledger {
        if mustExist && databasePath != ":memory:" && !FileManager.default.fileExists(atPath: databasePath) {
            throw CLIError(
                .ioError, "no ledger at \(databasePath)",
                hint: "pass --db PATH (or set TIPLEDGER_DB), or record into it first with 'tipledger verify'")
        }
        return try Ledger.open(path: databasePath, clock: clock, busyTimeout: busyTimeout)
    }
}
