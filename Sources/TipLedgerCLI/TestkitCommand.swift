// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// `tipledger testkit`: a local signing chain and signed test payloads, so a server pipeline can
/// be tested end to end without the App Store.
struct TestkitCommand: Command {
    static let name = "testkit"
    static let summary = "mint a test signing chain and sign test transactions and notifications"
    static let usage = """
        Usage: tipledger testkit init --out DIR [--force] [--not-before DATE] [--days N] [--leaf-days N]
               tipledger testkit transaction --keys DIR [options]
               tipledger testkit notification --keys DIR --type TYPE [options]

        Signs App Store-shaped payloads with a local TEST chain (never Apple's), the way Xcode's
        StoreKit testing does for apps, so a server can be tested end to end. Trust the chain
        with --keys DIR (or --root DIR/root.cer) when verifying.

        init: mints an EC P-256 root, an intermediate (marker OID 1.2.840.113635.100.6.2.1) and
        a leaf (1.2.840.113635.100.6.11.1) into DIR: NAME.cer, NAME.pem and NAME.key (mode 0600).
          --out DIR             where to write (created when missing); refused when DIR already
                                holds any of these files, unless --force
          --force               replace the chain in DIR: every token signed with the old one
                                is then untrusted (untrusted_chain)
          --not-before DATE     start of validity (default: a year ago)
          --days N              validity of root and intermediate in days (default 3650)
          --leaf-days N         validity of the leaf in days, at most --days (default 730:
                                a year from now)

        transaction: prints a signed transaction JWS (one line).
          --product ID          product id (default: the catalog's first, else com.example.tipjar.small)
          --account UUID        appAccountToken (default: a random UUID; 'none' for no token)
          --quantity N          units bought (default 1)
          --price DECIMAL       line total, e.g. 2.97 (default: catalog price × quantity)
          --currency CODE       ISO 4217 (default: by storefront, USD)
          --storefront CODE     USA, GBR, DEU, FRA, JPN, CAN or AUS (default USA)
          --purchase-date DATE  (default: now)    --signed-date DATE  (default: purchase date)
          --transaction-id ID   (default: random) --original-transaction-id ID
          --app-transaction-id ID
          --count N             print N varied tips (accounts, tiers, storefronts, quantities;
                                --storefront and --currency, when given, hold for all)
          --accounts N          with --count: how many accounts (default: about N/8, at most 40)
          --days N              with --count: spread purchases over the N days before the
                                purchase date (default 30)
          --seed N              with --count: reproducible output

        notification: prints a webhook body {"signedPayload":"..."} (one line each).
          --type TYPE           REFUND, REFUND_REVERSED, REVOKE, REFUND_DECLINED,
                                CONSUMPTION_REQUEST, ONE_TIME_CHARGE, TEST, or any other
          --subtype SUBTYPE
          --transaction JWS     the signed transaction it is about; '-': one notification per
                                signed transaction on standard input, in order; otherwise one
                                is signed from the transaction options
          --count N             print N notifications, each about a transaction of its own
          --revocation-reason N      REFUND/REVOKE: 0 other, 1 app issue (default 0)
          --revocation-percentage P  REFUND: prorated refund of P percent, e.g. 50
          --consumption-reason R     CONSUMPTION_REQUEST reason (default UNINTENDED_PURCHASE)
          --uuid UUID           notificationUUID (default: random)
          --signed-date DATE    (default: now)

        The bundle id is --bundle-id (default com.example.tipjar); the environment is the one
        --environment names, else Sandbox (or the one TIPLEDGER_ENVIRONMENT names, when it
        names one other than Sandbox); --app-apple-id goes into notifications; --catalog FILE
        prices tips from an Xcode .storekit file, and signs each product's type as it gives it
        (Consumable otherwise).

        Example:
          tipledger testkit init --out keys/test
          tipledger testkit transaction --keys keys/test --count 100 > tips.txt
          tipledger testkit notification --keys keys/test --type REFUND --transaction - < tips.txt > refunds.txt
          tipledger verify --keys keys/test --environment Sandbox --bundle-id com.example.tipjar < tips.txt

        """

    private let subcommand: any Command

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        // Its output is signed payloads, one per line, or files.
        _ = try globals.format(allowing: [.text], command: Self.name)
        switch scanner.nextPositional() {
        case "init": subcommand = try TestkitInitCommand(parsing: &scanner, globals: globals)
        case "transaction": subcommand = try TestkitTransactionCommand(parsing: &scanner, globals: globals)
        case "notification": subcommand = try TestkitNotificationCommand(parsing: &scanner, globals: globals)
        case let other?:
            throw CLIError.usage(
                "unknown testkit command '\(other)' (init, transaction or notification)", command: Self.name)
        case nil:
            throw CLIError.usage(
                "say which: testkit init, testkit transaction or testkit notification", command: Self.name)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try subcommand.run(context)
    }

    /// The environment payloads are signed for: the one --environment names; else the one
    /// TIPLEDGER_ENVIRONMENT names, or Sandbox when it lists Sandbox among others (a server
    /// that accepts Production,Sandbox is tested with Sandbox payloads); else Sandbox.
    static func environment(_ globals: GlobalOptions) throws -> AppStoreEnvironment {
        guard globals.environmentsWereGiven else { return .sandbox }
        if globals.environments.count == 1, let environment = globals.environments.first { return environment }
        if !globals.environmentFlagWasGiven && globals.environments.contains(.sandbox) { return .sandbox }
        throw CLIError.usage("testkit signs for one environment; give --environment with one name", command: name)
    }

    /// The bundle id payloads are signed for.
    static func bundleId(_ globals: GlobalOptions) -> String { globals.bundleIds.first ?? "com.example.tipjar" }

    /// Parses a date option into milliseconds since 1970.
    static func date(_ text: String?, option: String) throws -> Int64? {
        guard let text else { return nil }
        guard let date = AppleDate.parse(text) else {
            throw CLIError.usage(
                "\(option) takes a date like 2025-10-01 or 2025-10-01T07:00:00Z, not '\(text)'", command: name)
        }
        return date.wholeMilliseconds
    }
}
