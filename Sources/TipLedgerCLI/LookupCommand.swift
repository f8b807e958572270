// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger lookup`: asks Apple about one transaction (Get Transaction Info) or the
/// transactions of an order id from a customer's receipt e-mail (Look Up Order ID), then
/// verifies, shows and records what Apple signed.
struct LookupCommand: Command {
    static let name = "lookup"
    static let summary = "ask Apple about a transaction or a receipt's order id, and record it"
    static let usage = """
        Usage: tipledger lookup TRANSACTION_ID [--dry-run]
               tipledger lookup --order-id ORDER_ID [--dry-run]

        Asks Apple for the signed transaction (Get Transaction Info), or for the transactions
        of the order id on a customer's receipt e-mail (Look Up Order ID, what support asks
        for), in each environment of --environment until one knows it. Each is verified,
        shown, and recorded as 'verify' would: a transaction the ledger does not hold is
        recorded pending, one it holds takes Apple's newer state (a refund).

        Options:
          --order-id ORDER_ID   look up the order id from the receipt e-mail (Apple keeps
                                order ids in Production)
          --dry-run             verify and show, record nothing

        Exit status 0 when Apple knows it and everything verified, 1 when Apple knows no
        such transaction or order or a payload was rejected, 69 when Apple could not be
        reached.

        """ + "\n" + APIOptions.usage + "\n"

    let transactionId: String?
    let orderId: String?
    let dryRun: Bool
    let format: GlobalOptions.Format
    let api: APIOptions

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text, .json], command: Self.name)
        dryRun = scanner.flag("--dry-run")
        orderId = try scanner.value("--order-id")
        api = try APIOptions(parsing: &scanner)
        let positionals = try scanner.remainingPositionals()
        switch (orderId, positionals.count) {
        case (nil, 1): transactionId = positionals[0]
        case (.some, 0): transactionId = nil
        case (nil, 0):
            throw CLIError.usage("give a transaction id, or --order-id ORDER_ID", command: Self.name)
        default:
            throw CLIError.usage("give one transaction id or one --order-id", command: Self.name)
        }
        if let transactionId, !Ledger.isUsableTransactionId(transactionId) {
            throw CLIError.usage("'\(transactionId)' is not a transaction id", command: Self.name)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let verifier = try context.verifier(for: Self.name)
        let connection = try api.connect(
            context, command: Self.name, observer: AppStoreConnection.notes(on: context.terminal))
        let tokens: [String]
        if let orderId {
            let (_, answer) = try connection.firstFinding(
                "order \(orderId)", hint: "the order id is on the customer's receipt e-mail from Apple, e.g. MQ5YZ4A2BC"
            ) { try $0.lookUpOrderId(orderId) }
            guard answer.isValid else {
                throw CLIError(
                    .rejected, "Apple says the order id \(orderId) is not valid (status \(answer.rawStatus ?? -1))",
                    hint: "the order id is on the customer's receipt e-mail from Apple, e.g. MQ5YZ4A2BC")
            }
            tokens = answer.signedTransactions
        } else {
            let id = transactionId ?? ""
            let (_, answer) = try connection.firstFinding(
                "transaction \(id)",
                hint: "check the id: the app shows it as Transaction.id; a receipt e-mail shows the order id "
                    + "(lookup --order-id)"
            ) { try $0.transactionInfo(transactionId: id) }
            tokens = [answer.signedTransactionInfo ?? ""]
        }
        // Opened once Apple answered: a lookup of what Apple does not know leaves no ledger behind.
        let ledger = dryRun ? nil : try context.openLedger(.record)
        let intake = SignedPayloadIntake(verifier: verifier, ledger: ledger)
        let outcomes = try intake.take(tokens, as: .transaction, finish: false, saving: nil)
        show(outcomes, context)
        return outcomes.contains(where: \.isRejected) ? .rejected : .success
    }

    /// Prints each transaction: as a table row with its state in the ledger, or as JSON.
    private func show(_ outcomes: [PayloadOutcome], _ context: CommandContext) {
        let rendering = LookupRendering(outcomes: outcomes, dryRun: dryRun)
        switch format {
        case .text:
            for line in rendering.rejectionLines { context.terminal.errorLine(line) }
            context.terminal.write(rendering.text)
        case .json, .csv, .html:
            for line in rendering.jsonLines { context.terminal.line(line) }
        }
    }
}
