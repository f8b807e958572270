// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger pending`: transactions verified but not finished.
struct PendingCommand: Command {
    static let name = "pending"
    static let summary = "list transactions verified but not yet finished"
    static let usage = """
        Usage: tipledger pending

        Lists the transactions recorded with --no-finish (or learnt from notifications) that no
        one has finished yet, oldest first. Refunded and revoked ones are not listed.

        """

    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text, .json], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let ledger = try context.globals.openLedger(clock: context.clock, mustExist: true)
        let catalog = try context.globals.loadCatalog()
        let transactions = try ledger.pending()
        switch format {
        case .json, .csv:
            context.terminal.line(LedgerJSON.transactions(transactions, catalog: catalog))
        case .text:
            guard !transactions.isEmpty else {
                context.terminal.line("no pending transactions")
                return .success
            }
            context.terminal.write(TransactionTable.make(transactions, catalog: catalog).render())
        }
        return .success
    }
}
