// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger migrate`: applies the schema migrations and exits.
struct MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "create or upgrade the ledger's schema and exit"
    static let usage = """
        Usage: tipledger migrate [--page-size BYTES]

        Applies the migrations this binary carries to the ledger at --db, creating it when
        missing. verify and serve do the same when they open the ledger, and the commands that
        only read it migrate a ledger that exists; this one lets a deployment do it first. A
        ledger it creates has the small pages that suit serve's many small commits, as one serve
        creates does; one verify creates has larger pages, for its batches. A ledger with a
        newer schema than this binary is refused.

          --page-size BYTES  then rewrite the ledger with pages of BYTES (a power of two from
                             512 to 65536), unless it has them: 4096 before serving a ledger
                             verify made, whose 16384-byte pages make serve write more. It
                             copies the whole ledger (free space for two copies) while no
                             other process may have it open, and refuses a ledger Litestream
                             replicates (docs/operations.md says what to do then).

        """

    /// The page size to give the ledger, nil to keep its own.
    let pageSize: Int?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        if let text = try scanner.value("--page-size") {
            guard let bytes = Int(text), Ledger.isPageSize(bytes) else {
                throw CLIError.usage(
                    "--page-size must be a power of two from 512 to 65536, not '\(text)'", command: Self.name)
            }
            pageSize = bytes
        } else {
            pageSize = nil
        }
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
        if let pageSize {
            try Self.refuseReplicated(path, replicated: context.globals.replicated)
            let started = ContinuousClock.now
            let old = try Ledger.changePageSize(path: path, to: pageSize) { old in
                context.terminal.line("\(path): rewriting its pages of \(old) bytes as pages of \(pageSize) bytes ...")
            }
            let tenths = (ContinuousClock.now - started) / .milliseconds(100)
            context.terminal.line(
                old == pageSize
                    ? "\(path): pages of \(pageSize) bytes already"
                    : "\(path): pages of \(pageSize) bytes, rewritten in \(Int(tenths) / 10).\(Int(tenths) % 10) s")
        }
        return .success
    }

    /// Refuses to change the pages of a ledger Litestream replicates (`TIPLEDGER_REPLICATED`, or
    /// the `.NAME-litestream` folder it keeps beside one it has replicated): Litestream 0.5 cannot
    /// follow a page size change, and stops replicating with "unaligned wal offset" until it
    /// starts anew on an empty replica.
    static func refuseReplicated(_ path: String, replicated: Bool) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let state = "\(folder).\(name)-litestream"
        guard replicated || FileManager.default.fileExists(atPath: state) else { return }
        throw CLIError(
            .ioError,
            "Litestream replicates \(path) (\(replicated ? "TIPLEDGER_REPLICATED is set" : "\(state) is beside it")), "
                + "and cannot follow a change of its page size",
            hint: "stop Litestream and serve, remove \(state), run migrate --page-size without TIPLEDGER_REPLICATED, "
                + "then replicate to a new, empty replica (docs/operations.md)")
    }
}
