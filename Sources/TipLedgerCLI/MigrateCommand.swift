// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger migrate`: applies the schema migrations and exits.
struct MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "create or upgrade the ledger's schema and exit"
    static let usage = """
        Usage: tipledger migrate

        Applies the migrations this binary carries to the ledger at --db, creating it when
        missing. verify and serve do the same when they open the ledger, and the commands that
        only read it migrate a ledger that exists; this one lets a deployment do it first. A
        ledger it creates has the small pages that suit serve's many small commits, as one serve
        creates does; one verify creates has larger pages, for its batches. A ledger with a
        newer schema than this binary is refused.

        """

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        _ = try globals.format(allowing: [.text], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        // A deployment makes the ledger `serve` is to write with this command (the container
        // does, before Litestream first reads it), so a new one has the pages of small commits.
        let (from, to) = try Ledger.migrate(
            path: context.globals.databasePath, pages: .forSmallCommits, upgrading: context.announceUpgrade)
        let path = context.globals.databasePath
        context.terminal.line(
            from == to
                ? "\(path): schema version \(to), up to date"
                : from == 0 ? "\(path): set up, schema version \(to)" : "\(path): schema version \(from) → \(to)")
        return .success
    }
}
