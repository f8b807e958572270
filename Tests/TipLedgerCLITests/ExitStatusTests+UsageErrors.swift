// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

/// Command lines a user got wrong: each exits with 64 before doing anything, says what is wrong
/// and how to mend it, and makes no ledger.
extension ExitStatusTests {
    static let usageErrors: [FailingCommand] = [
        FailingCommand(name: "no command", arguments: [], message: "no command given"),
        FailingCommand(name: "unknown command", arguments: ["frobnicate"], message: "unknown command 'frobnicate'"),
        FailingCommand(
            name: "a mistyped option and no command", arguments: ["--bogus"], message: "unknown option '--bogus'"),
        FailingCommand(name: "a global option without its value", arguments: ["--db"], message: "--db needs a value"),
        FailingCommand(
            name: "no command, and a setting in the environment that would not do", arguments: [],
            message: "no command given", environment: ["TIPLEDGER_APP_APPLE_ID": "abc"]),
        FailingCommand(
            name: "unknown option", arguments: ["verify", "--frobnicate"] + sandbox,
            message: "unknown option '--frobnicate'"),
        FailingCommand(
            name: "unknown option of another command", arguments: ["pending", "--by", "day"],
            message: "unknown option '--by'"),
        FailingCommand(
            name: "missing --bundle-id", arguments: ["verify", "--environment", "Sandbox"],
            message: "no bundle id is configured", input: "x\n"),
        FailingCommand(
            name: "Production accepted without --app-apple-id",
            arguments: ["verify", "--bundle-id", "com.example.tipjar"],
            message: "--app-apple-id is required", input: "x\n"),
        FailingCommand(
            name: "bad --environment",
            arguments: ["verify", "--bundle-id", "com.example.tipjar", "--environment", "Staging"],
            message: "--environment must list", input: "x\n"),
        FailingCommand(
            name: "bad --app-apple-id",
            arguments: ["verify", "--bundle-id", "com.example.tipjar", "--app-apple-id", "abc"],
            message: "--app-apple-id must be a positive whole number"),
        FailingCommand(
            name: "bad TIPLEDGER_ENVIRONMENT", arguments: ["verify", "--bundle-id", "com.example.tipjar"],
            message: "TIPLEDGER_ENVIRONMENT must list Production, Sandbox, Xcode or LocalTesting", input: "x\n",
            environment: ["TIPLEDGER_ENVIRONMENT": ","]),
        FailingCommand(
            name: "bad TIPLEDGER_APP_APPLE_ID", arguments: ["verify", "--bundle-id", "com.example.tipjar"],
            message: "TIPLEDGER_APP_APPLE_ID must be a positive whole number, not 'abc'",
            environment: ["TIPLEDGER_APP_APPLE_ID": "abc"]),
        FailingCommand(
            name: "bad --listen", arguments: ["serve", "--listen", "bogus"],
            message: "--listen takes HOST:PORT with an IPv4 host, such as 0.0.0.0:8080, not 'bogus'"),
        FailingCommand(
            name: "bad TIPLEDGER_LISTEN", arguments: ["health"], message: "TIPLEDGER_LISTEN takes HOST:PORT",
            environment: ["TIPLEDGER_LISTEN": "bogus"]),
        FailingCommand(
            name: "testkit --count with an option it varies itself",
            arguments: ["testkit", "transaction", "--count", "3", "--price", "1", "--account", "none"],
            message: "--count varies products, prices, accounts and dates itself; leave out --price, --account"),
        FailingCommand(
            name: "testkit --days without --count", arguments: ["testkit", "transaction", "--days", "5"],
            message: "--days spreads the tips of --count N over days; give --count"),
        FailingCommand(
            name: "format no command has", arguments: ["verify", "--format", "xml"] + sandbox,
            message: "--format must be"),
        FailingCommand(
            name: "csv for verify", arguments: ["verify", "--format", "csv"] + sandbox,
            message: "verify prints text or json, not csv"),
        FailingCommand(
            name: "json for backup", arguments: ["backup", "copy.sqlite", "--format", "json"],
            message: "backup prints text, not json"),
        FailingCommand(
            name: "json for migrate", arguments: ["migrate", "--format", "json"],
            message: "migrate prints text, not json"),
        FailingCommand(
            name: "json for serve", arguments: ["serve", "--format", "json"], message: "serve prints text, not json"),
        FailingCommand(
            name: "json for health", arguments: ["health", "--format", "json"], message: "health prints text, not json"),
        FailingCommand(
            name: "json for testkit", arguments: ["testkit", "transaction", "--format", "json"],
            message: "testkit prints text, not json"),
        FailingCommand(
            name: "verify --commit-every 0", arguments: ["verify", "--commit-every", "0"] + sandbox,
            message: "--commit-every must be a whole number from 1 to 1000000, not '0'"),
        FailingCommand(
            name: "csv for restore",
            arguments: ["restore", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138", "--format", "csv"],
            message: "restore prints text or json, not csv"),
        FailingCommand(name: "restore without --account", arguments: ["restore"], message: "give --account UUID"),
        FailingCommand(
            name: "malformed account UUID", arguments: ["restore", "--account", "7e3fb20b-4cdb-47cc-936d"],
            message: "--account must be a UUID"),
        FailingCommand(
            name: "report --by nonsense", arguments: ["report", "--by", "nonsense"],
            message: "--by takes one of product, currency, storefront, account, day, month, not 'nonsense'"),
        FailingCommand(
            name: "bad --since date", arguments: ["report", "--since", "2025-13-45"], message: "--since takes a date"),
        FailingCommand(
            name: "--since after --until", arguments: ["report", "--since", "2025-10-02", "--until", "2025-10-01"],
            message: "--since takes a date before until's (2025-10-01), not '2025-10-02'"),
        FailingCommand(
            name: "--commission 150%", arguments: ["report", "--commission", "150%"],
            message: "--commission takes a rate"),
        FailingCommand(
            name: "a commission that rounds to 100%", arguments: ["report", "--commission", "99.9999999%"],
            message: "--commission takes a rate"),
        FailingCommand(name: "option without its value", arguments: ["report", "--by"], message: "--by needs a value"),
        FailingCommand(name: "finish without ids", arguments: ["finish"], message: "give at least one transaction id"),
        FailingCommand(
            name: "a bundle id with a slash",
            arguments: ["verify", "--environment", "Sandbox", "--bundle-id", "com.a,com/b,"],
            message: "--bundle-id lists 'com/b', which is no bundle id (letters, digits, '-' and '.')"),
        FailingCommand(
            name: "a bundle id with a space in the environment", arguments: ["verify", "--environment", "Sandbox"],
            message: "TIPLEDGER_BUNDLE_ID lists 'com.example app', which is no bundle id",
            environment: ["TIPLEDGER_BUNDLE_ID": "com.example app"]),
        FailingCommand(
            name: "a bundle id with a space",
            arguments: ["verify", "--environment", "Sandbox", "--bundle-id", "com.example app"],
            message: "--bundle-id lists 'com.example app', which is no bundle id"),
        FailingCommand(
            name: "an option given twice", arguments: ["report", "--since", "2026-01-01", "--since=2026-02-01"],
            message: "--since is given more than once"),
        FailingCommand(
            name: "a global option given twice", arguments: ["--db", "a.sqlite", "pending", "--db", "b.sqlite"],
            message: "--db is given more than once"),
        FailingCommand(name: "backup without a path", arguments: ["backup"], message: "give exactly one destination"),
        FailingCommand(
            name: "backup to an empty path", arguments: ["backup", ""],
            message: "the destination PATH needs a file name"),
        FailingCommand(
            name: "backup into memory", arguments: ["backup", ":memory:"],
            message: "the destination PATH :memory: would be a database in memory, which keeps nothing"),
        FailingCommand(
            name: "backup to an SQLite URI", arguments: ["backup", "file:copy.sqlite"],
            message: "the destination PATH file:copy.sqlite would be read as an SQLite URI"),
        FailingCommand(name: "testkit without a subcommand", arguments: ["testkit"], message: "say which"),

        FailingCommand(
            name: "testkit --revocation-percentage finer than Apple's milliunits",
            arguments: ["testkit", "notification", "--type", "REFUND", "--revocation-percentage", "33.3335"],
            message: "--revocation-percentage takes a percentage above 0 and up to 100, with at most three decimals "
                + "(Apple's milliunits), not '33.3335'"),
        FailingCommand(
            name: "testkit --accounts without --count", arguments: ["testkit", "transaction", "--accounts", "3"],
            message: "--accounts shares out the tips of --count N; give --count"),
        FailingCommand(
            name: "an empty --api-key", arguments: ["sync", "--api-key", ""], message: "--api-key needs a file name"),
        FailingCommand(
            name: "an empty --api-ca", arguments: ["lookup", "--api-ca", "", "2000000000000001"],
            message: "--api-ca needs a file name"),
        FailingCommand(
            name: "testkit TEST notification about a transaction",
            arguments: ["testkit", "notification", "--type", "TEST", "--transaction", "-"],
            message: "a TEST notification is about no transaction; leave out --transaction"),
        FailingCommand(
            name: "testkit notification --count with --transaction",
            arguments: ["testkit", "notification", "--type", "REFUND", "--count", "2", "--transaction", "-"],
            message: "--count signs a transaction for each notification; leave out --transaction (--transaction - "
                + "signs one notification per transaction on standard input)"),
        FailingCommand(
            name: "testkit notification --count with --uuid",
            arguments: [
                "testkit", "notification", "--type", "REFUND", "--count", "2", "--uuid",
                "6f1c3a1e-1111-4a4a-8b8b-000000000001",
            ],
            message: "--count gives each notification a UUID of its own; leave out --uuid"),
        FailingCommand(
            name: "testkit notification --count with --transaction-id",
            arguments: ["testkit", "notification", "--type", "REFUND", "--count", "2", "--transaction-id", "5"],
            message: "--count makes fresh transaction ids; leave out --transaction-id"),
        FailingCommand(name: "empty --db", arguments: ["report", "--db", ""], message: "--db needs a file name"),
        FailingCommand(
            name: "--db in memory", arguments: ["verify", "--db", ":memory:"],
            message: "--db :memory: would be a database in memory, which keeps nothing"),
        FailingCommand(
            name: "--db as an SQLite URI", arguments: ["migrate", "--db", "file:ledger.sqlite?mode=memory"],
            message: "--db file:ledger.sqlite?mode=memory would be read as an SQLite URI"),
        FailingCommand(
            name: "--db ending in a slash", arguments: ["verify", "--db", "ledger.sqlite/"] + sandbox,
            message: "--db ledger.sqlite/ ends in '/', which names a directory", input: "x\n",
            afterwards: [.absent("ledger.sqlite")]),
        FailingCommand(
            name: "--db ending in a slash, beside a ledger of that name", arguments: ["report", "--db", "l.sqlite/"],
            message: "--db l.sqlite/ ends in '/', which names a directory", setup: [.migrate("l.sqlite")]),
        FailingCommand(
            name: "backup to a path ending in a slash", arguments: ["backup", "copy.sqlite/", "--db", "l.sqlite"],
            message: "the destination PATH copy.sqlite/ ends in '/', which names a directory",
            setup: [.migrate("l.sqlite")], afterwards: [.absent("copy.sqlite")]),
        FailingCommand(
            name: "an empty --keys", arguments: ["testkit", "transaction", "--keys", ""],
            message: "--keys needs a directory name"),
        FailingCommand(
            name: "an empty --keys for verify", arguments: ["verify", "--keys", ""] + sandbox,
            message: "--keys needs a directory name", input: "x\n"),
        FailingCommand(
            name: "an empty --root", arguments: ["verify", "--root", ""] + sandbox,
            message: "--root needs a file name", input: "x\n"),
        FailingCommand(
            name: "an empty --catalog", arguments: ["report", "--catalog", ""], message: "--catalog needs a file name"),
        FailingCommand(
            name: "testkit init into an empty --out", arguments: ["testkit", "init", "--out", ""],
            message: "--out needs a directory name"),
        FailingCommand(
            name: "serve with an empty --api-token-file", arguments: ["serve", "--api-token-file", ""] + sandbox,
            message: "--api-token-file needs a file name"),
        FailingCommand(
            name: "serve --connection-limit beyond the server's", arguments: ["serve", "--connection-limit", "70000"],
            message: "--connection-limit must be a whole number from 1 to 65536, not '70000'"),
        FailingCommand(
            name: "serve with more connections per client than in all",
            arguments: ["serve", "--connection-limit", "64", "--connections-per-client", "100"],
            message: "--connections-per-client (100) must be at most --connection-limit (64)"),
        FailingCommand(
            name: "serve with fewer connections than threads",
            arguments: ["serve", "--threads", "8", "--connection-limit", "4"],
            message: "--connection-limit (4) must be at least --threads (8)"),
        FailingCommand(
            name: "serve --header-timeout of zero", arguments: ["serve", "--header-timeout", "0"],
            message: "--header-timeout must be a whole number from 1 to 3600, not '0'"),
        FailingCommand(
            name: "serve --sync-interval too large to count in seconds",
            arguments: [
                "serve", "--bundle-id", "com.example.tips", "--environment", "Sandbox", "--sync-interval",
                "9223372036854775807h",
            ],
            message: "--sync-interval takes a time such as 30s, 15m or 1h (0 for never), not '9223372036854775807h'"),
        FailingCommand(
            name: "TIPLEDGER_SYNC_INTERVAL too large to count in seconds",
            arguments: ["serve", "--bundle-id", "com.example.tips", "--environment", "Sandbox"],
            message:
                "TIPLEDGER_SYNC_INTERVAL takes a time such as 30s, 15m or 1h (0 for never), not '200000000000000000m'",
            environment: ["TIPLEDGER_SYNC_INTERVAL": "200000000000000000m"]),
    ]

    @Test(arguments: usageErrors)
    func usageErrorExitsWith64AndAHint(_ command: FailingCommand) async throws {
        try await command.run()
    }

    /// A mistyped command is answered with the nearest one (at most two letters away); a word
    /// far from every command gets the plain hint.
    static let unknownCommands: [FailingCommand] = [
        ("verfy", "did you mean 'verify'? "), ("reprot", "did you mean 'report'? "),
        ("restor", "did you mean 'restore'? "), ("frobnicate", ""),
    ].map { typed, suggestion in
        FailingCommand(
            name: typed, arguments: [typed], message: "unknown command '\(typed)'",
            lastLine: "hint: \(suggestion)run 'tipledger --help' for the list of commands")
    }

    @Test(arguments: unknownCommands)
    func anUnknownCommandSuggestsTheNearestOne(_ command: FailingCommand) async throws {
        try await command.run()
    }

    /// A bad option of a command points to that command's help.
    static let badOptions: [FailingCommand] = [
        ["report", "--by"], ["serve", "--threads", "x"], ["testkit", "transaction", "--quantity", "0"],
        ["verify", "--frobnicate"], ["finish", "--frobnicate", "1"], ["report", "--environment", "Staging"],
        ["verify", "--format", "xml"], ["report", "--db", ""],
    ].map { arguments in
        FailingCommand(
            name: arguments.joined(separator: " "), arguments: arguments, message: "",
            lastLine: "hint: run 'tipledger \(arguments[0]) --help' for usage")
    }

    @Test(arguments: badOptions)
    func aBadOptionPointsToItsCommandsHelp(_ command: FailingCommand) async throws {
        try await command.run()
    }

    /// testkit signs only what verify would take: prices to their currency's minor unit, and a
    /// Production notification with the app's Apple ID.
    static let testkitRefusals: [FailingCommand] = [
        FailingCommand(
            name: "a JPY price with decimals",
            arguments: [
                "testkit", "transaction", "--keys", FailingCommand.keys, "--currency", "JPY", "--price", "120.5",
            ],
            message: "--price in JPY is a whole amount (JPY has no minor unit)"),
        FailingCommand(
            name: "a JPY price with one decimal",
            arguments: [
                "testkit", "transaction", "--keys", FailingCommand.keys, "--currency", "JPY", "--price", "1.5",
            ],
            message: "--price in JPY is a whole amount"),
        FailingCommand(
            name: "a USD price finer than cents",
            arguments: [
                "testkit", "transaction", "--keys", FailingCommand.keys, "--currency", "USD", "--price", "0.995",
            ],
            message: "--price in USD has at most 2 decimals"),
        FailingCommand(
            name: "a Production notification without the app's Apple ID",
            arguments: [
                "testkit", "notification", "--keys", FailingCommand.keys, "--type", "TEST", "--environment",
                "Production",
            ],
            message: "a Production notification carries the app's Apple ID: give --app-apple-id"),
    ]

    @Test(arguments: testkitRefusals)
    func testkitRefusesWhatVerifyWouldReject(_ command: FailingCommand) async throws {
        try await command.run()
    }

    /// The same commands, mended, sign: one token each.
    @Test(arguments: [
        ["testkit", "transaction", "--currency", "KWD", "--price", "1.995"],
        ["testkit", "transaction", "--currency", "JPY", "--price", "150"],
        ["testkit", "notification", "--type", "TEST", "--environment", "Production", "--app-apple-id", "1234567890"],
    ])
    func testkitSignsWhatVerifyWouldTake(_ arguments: [String]) async throws {
        let keys = try await SharedInputs.shared.keys()
        let signed = try await TipLedgerBinary.run(arguments + ["--keys", keys], in: keys)
        #expect(signed.exited(0) && signed.outLines.count == 1, "\(signed.summary)")
    }

    /// A catalog that cannot be read is named in the error.
    static let catalogErrors: [FailingCommand] = [
        FailingCommand(
            name: "a malformed catalog", arguments: ["report", "--db", "l.sqlite", "--catalog", "Broken.storekit"],
            message: "Broken.storekit",
            setup: [.write("{\"products\": [", to: "Broken.storekit"), .migrate("l.sqlite")]),
        FailingCommand(
            name: "a catalog without products",
            arguments: ["pending", "--db", "l.sqlite", "--catalog", "Empty.storekit"],
            message: "Empty.storekit: the catalog has no products",
            setup: [
                .write(
                    #"{"identifier": "X", "products": [], "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#,
                    to: "Empty.storekit"),
                .migrate("l.sqlite"),
            ]),
    ]

    @Test(arguments: catalogErrors)
    func aCatalogThatCannotBeReadExitsWith64NamingTheFile(_ command: FailingCommand) async throws {
        try await command.run()
    }
}
