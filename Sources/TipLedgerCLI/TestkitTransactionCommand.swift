// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// `tipledger testkit transaction`: prints signed test transactions.
struct TestkitTransactionCommand: Command {
    static let name = "testkit transaction"
    static let summary = "sign test transactions"
    static var usage: String { TestkitCommand.usage }

    let options: TestkitTransactionOptions
    let count: Int?
    let accounts: Int?
    let days: Int
    let seed: UInt64?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        options = try TestkitTransactionOptions(parsing: &scanner, command: TestkitCommand.name)
        count = try scanner.integer("--count", in: 1...100_000_000)
        accounts = try scanner.integer("--accounts", in: 1...10_000_000)
        let days = try scanner.integer("--days", in: 1...36_500)
        self.days = days ?? 30
        seed = try scanner.integer("--seed", in: 0...Int.max).map(UInt64.init)
        if count == nil && accounts != nil {
            throw CLIError.usage(
                "--accounts shares out the tips of --count N; give --count", command: TestkitCommand.name)
        }
        if count == nil && days != nil {
            throw CLIError.usage(
                "--days spreads the tips of --count N over days; give --count", command: TestkitCommand.name)
        }
        if count != nil && (options.transactionId != nil || options.originalTransactionId != nil) {
            throw CLIError.usage(
                "--count makes fresh transaction ids; leave out --transaction-id", command: TestkitCommand.name)
        }
        // --count varies these itself: given, they would be left out without a word.
        let varied = [
            ("--product", options.productId != nil), ("--price", options.priceMilli != nil),
            ("--quantity", options.quantity != nil), ("--account", options.account != nil),
            ("--signed-date", options.signedDate != nil), ("--app-transaction-id", options.appTransactionId != nil),
        ].filter(\.1).map(\.0)
        if count != nil, !varied.isEmpty {
            throw CLIError.usage(
                "--count varies products, prices, accounts and dates itself; leave out \(varied.joined(separator: ", "))",
                command: TestkitCommand.name)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        guard let keys = context.globals.keysDirectory else {
            throw CLIError.usage(
                "testkit transaction needs --keys DIR (made by 'testkit init')", command: TestkitCommand.name)
        }
        let signer = try TestkitKeys.signer(from: keys)
        let catalog = try context.globals.loadCatalog(warningsTo: context.terminal)
        let bundleId = TestkitCommand.bundleId(context.globals)
        let environment = try TestkitCommand.environment(context.globals)
        let now = context.clock.now().wholeMilliseconds
        var random = SeededGenerator(seed: seed ?? UInt64.random(in: 0...UInt64.max))
        guard let count else {
            let fields = try options.transaction(
                bundleId: bundleId, environment: environment, catalog: catalog, now: now, random: &random)
            context.terminal.line(try ParallelSigner.sign([fields.payloadJSON], with: signer)[0])
            return .success
        }
        if let currency = options.currency {
            let source = TestkitTransactionOptions.tierCurrency(catalog)
            for (product, price) in TestkitTransactionOptions.tiers(catalog)
            where TestkitTransactionOptions.localPrice(price, from: source, to: currency) == nil {
                throw CLIError.usage(
                    "testkit cannot price \(product) in \(currency); choose another --currency",
                    command: TestkitCommand.name)
            }
        }
        let accounts = self.accounts ?? min(max(count / 8, 1), 40)
        var generator = TipGenerator(
            options: options, count: count, accounts: accounts, days: days, end: options.purchaseDate ?? now,
            bundleId: bundleId, environment: environment, catalog: catalog, random: random)
        var remaining = count
        var progress = Progress(terminal: context.terminal, clock: context.clock)
        // Chunks keep memory flat for millions of lines.
        while remaining > 0 {
            let batch = generator.next(4096)
            for token in try ParallelSigner.sign(batch.map(\.payloadJSON), with: signer) {
                context.terminal.write(token + "\n")
            }
            remaining -= batch.count
            progress.update(lines: count - remaining, of: count)
            // Nobody reads the tokens any more (`| head`): stop; CLI.main reports it (74).
            if context.terminal.outputFailure != nil { break }
        }
        progress.finish()
        return .success
    }
}
