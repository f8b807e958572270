// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger finish ID...`: marks pending transactions finished (delivered).
struct FinishCommand: Command {
    static let name = "finish"
    static let summary = "mark pending transactions finished (delivered)"
    static let usage = """
        Usage: tipledger finish TRANSACTION_ID...

        Marks each transaction finished, as the app does with Transaction.finish() once it has
        delivered the tip. Finishing twice is harmless. With --environment (or
        TIPLEDGER_ENVIRONMENT), only transactions of those environments are matched; otherwise
        any environment. Prints one line per id and environment holding it, naming the
        environment, and one line for an id that none holds.

        Exit status 1 when an id is not in the ledger.

        """

    let transactionIds: [String]
    /// The environments whose transactions are matched.
    let environments: Set<AppStoreEnvironment>
    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        transactionIds = try scanner.remainingPositionals()
        guard !transactionIds.isEmpty else {
            throw CLIError.usage("give at least one transaction id", command: Self.name)
        }
        guard transactionIds.allSatisfy(Ledger.isUsableTransactionId) else {
            throw CLIError.usage("a transaction id is 1 to 64 printable characters without spaces", command: Self.name)
        }
        environments = Set(globals.givenEnvironments ?? AppStoreEnvironment.allCases)
        format = try globals.format(allowing: [.text, .json], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let ledger = try context.openLedger(.update)
        let results = try ledger.finish(transactionIds, environments: environments)
        let rendering = FinishRendering(results: results)
        switch format {
        case .json, .csv, .html: rendering.jsonLines.forEach(context.terminal.line)
        case .text: rendering.textLines.forEach(context.terminal.line)
        }
        return results.contains { $0.outcome == .notFound } ? .rejected : .success
    }
}
