// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger pending`: transactions verified but not finished.
struct PendingCommand: Command {
    static let name = "pending"
    static let summary = "list transactions verified but not yet finished"
    static let usage = """
        Usage: tipledger pending

        Lists the transactions recorded with --no-finish (or learnt from notifications) that no
        one has finished yet, oldest first. Refunded and revoked ones are not listed. With
        --environment (or TIPLEDGER_ENVIRONMENT), only those environments' transactions.

        """

    let format: GlobalOptions.Format
    /// The environments listed; nil for all.
    let environments: [AppStoreEnvironment]?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text, .json], command: Self.name)
        environments = globals.givenEnvironments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let ledger = try context.openLedger(.read)
        let catalog = try context.globals.loadCatalog(warningsTo: context.terminal)
        let rendering = PendingRendering(
            transactions: try ledger.pending(environments: environments), catalog: catalog)
        switch format {
        case .json, .csv, .html: context.terminal.line(rendering.json)
        case .text: context.terminal.write(rendering.text)
        }
        return .success
    }
}
