// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger restore --account UUID`: an account's tips, for "Restore Purchases".
struct RestoreCommand: Command {
    static let name = "restore"
    static let summary = "list an account's tips (by appAccountToken) with net totals"
    static let usage = """
        Usage: tipledger restore --account UUID [--all]
               tipledger restore --app-transaction-id ID [--all]

        Lists the tips of one customer: those whose signed transactions carry the
        appAccountToken UUID the app set when buying, or (for apps that set none) the
        appTransactionId. By default refunded and revoked tips are left out; --all lists them
        too, with their state. Totals are per environment and currency, net of refunds. With
        --environment (or TIPLEDGER_ENVIRONMENT), only those environments' tips.

        Options:
          --account UUID             the appAccountToken (any letter case)
          --app-transaction-id ID    the appTransactionId instead
          --all                      include refunded and revoked tips

        """

    let key: LedgerJSON.RestoreKey
    let includeAll: Bool
    let format: GlobalOptions.Format
    /// The environments listed; nil for all.
    let environments: [AppStoreEnvironment]?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        let account = try scanner.value("--account")
        let appTransactionId = try scanner.value("--app-transaction-id")
        switch (account, appTransactionId) {
        case (let account?, nil):
            guard UUID(uuidString: account) != nil else {
                throw CLIError.usage(
                    "--account must be a UUID such as 7e3fb20b-4cdb-47cc-936d-99d65f608138", command: Self.name)
            }
            key = .account(account.lowercased())
        case (nil, let id?):
            guard Ledger.isUsableTransactionId(id) else {
                throw CLIError.usage("--app-transaction-id must be 1 to 64 printable characters", command: Self.name)
            }
            key = .appTransactionId(id)
        case (nil, nil):
            throw CLIError.usage("give --account UUID or --app-transaction-id ID", command: Self.name)
        case (.some, .some):
            throw CLIError.usage("give either --account or --app-transaction-id, not both", command: Self.name)
        }
        includeAll = scanner.flag("--all")
        format = try globals.format(allowing: [.text, .json], command: Self.name)
        environments = globals.givenEnvironments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let ledger = try context.openLedger(.read)
        let catalog = try context.globals.loadCatalog()
        let restore: Restore
        switch key {
        case .account(let account):
            restore = try ledger.restore(account: account, includeAll: includeAll, environments: environments)
        case .appTransactionId(let id):
            restore = try ledger.restore(appTransactionId: id, includeAll: includeAll, environments: environments)
        }
        switch format {
        case .json, .csv: context.terminal.line(LedgerJSON.restore(restore, key: key, catalog: catalog))
        case .text: context.terminal.write(text(restore, catalog: catalog))
        }
        return .success
    }

    private func text(_ restore: Restore, catalog: StoreKitCatalog?) -> String {
        let who: String
        switch key {
        case .account(let account): who = "account \(account)"
        case .appTransactionId(let id): who = "app transaction \(id)"
        }
        // The totals count every tip; a listed tip counts its net amount.
        struct Pot: Hashable {
            let environment: AppStoreEnvironment
            let currency: String?
        }
        var listed: [Pot: Int64] = [:]
        for tip in restore.transactions {
            listed[Pot(environment: tip.environment, currency: tip.currency), default: 0] += tip.netMilli
        }
        var totals = TextTable(headers: ["net total", "environment", "currency"], rightAligned: [0])
        var countsUnlisted = false
        for total in restore.totals {
            let shown = listed[Pot(environment: total.environment, currency: total.currency)]
            // A currency of only fully refunded or revoked tips, none listed, adds nothing to say.
            if shown == nil && total.netMilli == 0 { continue }
            countsUnlisted = countsUnlisted || total.netMilli != shown ?? 0
            totals.add([
                Money.decimal(total.netMilli, currency: total.currency), total.environment.rawValue,
                total.currency ?? "-",
            ])
        }
        let leftOut =
            restore.unlisted == 0
            ? "" : " (\(restore.unlisted) refunded or revoked left out; --all lists them)"
        guard !restore.transactions.isEmpty || !totals.rows.isEmpty else {
            return "\(who): no tips\(restore.totals.isEmpty ? "" : leftOut)\n"
        }
        let count = restore.transactions.count
        let tips = count == 0 ? "no tips listed" : "\(count) tip\(count == 1 ? "" : "s")"
        var text = "\(who): \(tips)\(leftOut)\n"
        if count > 0 {
            text += TransactionTable.make(restore.transactions, catalog: catalog).render(indent: "  ") + "\n"
        }
        text += totals.render(indent: "  ")
        if countsUnlisted {
            text += "  (the totals include what partly refunded tips still count; --all lists them)\n"
        }
        return text
    }
}
