// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
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

    let key: RestoreRendering.Key
    let includeAll: Bool
    let format: GlobalOptions.Format
    /// The environments listed; nil for all.
    let environments: [AppStoreEnvironment]?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        let account = try scanner.value("--account")
        let appTransactionId = try scanner.value("--app-transaction-id")
        switch (account, appTransactionId) {
        case (let account?, nil):
            guard Ledger.isAccountToken(account) else {
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
        let catalog = try context.globals.loadCatalog(warningsTo: context.terminal)
        let restore: Restore
        switch key {
        case .account(let account):
            restore = try ledger.restore(account: account, includeAll: includeAll, environments: environments)
        case .appTransactionId(let id):
            restore = try ledger.restore(appTransactionId: id, includeAll: includeAll, environments: environments)
        }
        let rendering = RestoreRendering(restore: restore, key: key, catalog: catalog)
        switch format {
        case .json, .csv, .html: context.terminal.line(rendering.json)
        case .text: context.terminal.write(rendering.text)
        }
        return .success
    }
}
