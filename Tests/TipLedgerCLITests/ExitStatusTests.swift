// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore
import TipLedgerTestSupport

/// Exit statuses (SPEC section 5) and the `error: ...` / `hint: ...` lines, each produced for
/// real by running the binary.
@Suite struct ExitStatusTests {
    /// A command line that must fail with `status` before doing anything.
    struct FailingCase: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        /// Text the `error:` line must contain.
        let message: String
        var input: String = ""
        /// Environment variables the command runs with.
        var environment: [String: String] = [:]
        var testDescription: String { name }
    }

    static let sandbox = ["--environment", "Sandbox", "--bundle-id", "com.example.tipjar"]

    /// Sets up an empty ledger `l.sqlite` in `directory` with `migrate`.
    static func migrateLedger(in directory: TemporaryDirectory) async throws {
        let migrate = try await TipLedgerBinary.run(["migrate", "--db", "l.sqlite"], in: directory.path)
        try #require(migrate.exited(0), "\(migrate.summary)")
    }

    static let usageErrors: [FailingCase] = [
        FailingCase(name: "no command", arguments: [], message: "no command given"),
        FailingCase(name: "unknown command", arguments: ["frobnicate"], message: "unknown command 'frobnicate'"),
        FailingCase(
            name: "a mistyped option and no command", arguments: ["--bogus"], message: "unknown option '--bogus'"),
        FailingCase(name: "a global option without its value", arguments: ["--db"], message: "--db needs a value"),
        FailingCase(
            name: "no command, and a setting in the environment that would not do", arguments: [],
            message: "no command given", environment: ["TIPLEDGER_APP_APPLE_ID": "abc"]),
        FailingCase(
            name: "unknown option", arguments: ["verify", "--frobnicate"] + sandbox,
            message: "unknown option '--frobnicate'"),
        FailingCase(
            name: "unknown option of another command", arguments: ["pending", "--by", "day"],
            message: "unknown option '--by'"),
        FailingCase(
            name: "missing --bundle-id", arguments: ["verify", "--environment", "Sandbox"],
            message: "no bundle id is configured", input: "x\n"),
        FailingCase(
            name: "Production accepted without --app-apple-id",
            arguments: ["verify", "--bundle-id", "com.example.tipjar"],
            message: "--app-apple-id is required", input: "x\n"),
        FailingCase(
            name: "bad --environment",
            arguments: ["verify", "--bundle-id", "com.example.tipjar", "--environment", "Staging"],
            message: "--environment must list", input: "x\n"),
        FailingCase(
            name: "bad --app-apple-id",
            arguments: ["verify", "--bundle-id", "com.example.tipjar", "--app-apple-id", "abc"],
            message: "--app-apple-id must be a positive whole number"),
        FailingCase(
            name: "bad TIPLEDGER_ENVIRONMENT", arguments: ["verify", "--bundle-id", "com.example.tipjar"],
            message: "TIPLEDGER_ENVIRONMENT must list Production, Sandbox, Xcode or LocalTesting", input: "x\n",
            environment: ["TIPLEDGER_ENVIRONMENT": ","]),
        FailingCase(
            name: "bad TIPLEDGER_APP_APPLE_ID", arguments: ["verify", "--bundle-id", "com.example.tipjar"],
            message: "TIPLEDGER_APP_APPLE_ID must be a positive whole number, not 'abc'",
            environment: ["TIPLEDGER_APP_APPLE_ID": "abc"]),
        FailingCase(
            name: "bad --listen", arguments: ["serve", "--listen", "bogus"],
            message: "--listen takes HOST:PORT with an IPv4 host, such as 0.0.0.0:8080, not 'bogus'"),
        FailingCase(
            name: "bad TIPLEDGER_LISTEN", arguments: ["health"], message: "TIPLEDGER_LISTEN takes HOST:PORT",
            environment: ["TIPLEDGER_LISTEN": "bogus"]),
        FailingCase(
            name: "testkit --count with an option it varies itself",
            arguments: ["testkit", "transaction", "--count", "3", "--price", "1", "--account", "none"],
            message: "--count varies products, prices, accounts and dates itself; leave out --price, --account"),
        FailingCase(
            name: "testkit --days without --count", arguments: ["testkit", "transaction", "--days", "5"],
            message: "--days spreads the tips of --count N over days; give --count"),
        FailingCase(
            name: "format no command has", arguments: ["verify", "--format", "xml"] + sandbox,
            message: "--format must be"),
        FailingCase(
            name: "csv for verify", arguments: ["verify", "--format", "csv"] + sandbox,
            message: "verify prints text or json, not csv"),
        FailingCase(
            name: "json for backup", arguments: ["backup", "copy.sqlite", "--format", "json"],
            message: "backup prints text, not json"),
        FailingCase(
            name: "json for migrate", arguments: ["migrate", "--format", "json"],
            message: "migrate prints text, not json"),
        FailingCase(
            name: "json for serve", arguments: ["serve", "--format", "json"], message: "serve prints text, not json"),
        FailingCase(
            name: "json for health", arguments: ["health", "--format", "json"], message: "health prints text, not json"),
        FailingCase(
            name: "json for testkit", arguments: ["testkit", "transaction", "--format", "json"],
            message: "testkit prints text, not json"),
        FailingCase(
            name: "verify --commit-every 0", arguments: ["verify", "--commit-every", "0"] + sandbox,
            message: "--commit-every must be a whole number from 1 to 1000000, not '0'"),
        FailingCase(
            name: "csv for restore",
            arguments: ["restore", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138", "--format", "csv"],
            message: "restore prints text or json, not csv"),
        FailingCase(name: "restore without --account", arguments: ["restore"], message: "give --account UUID"),
        FailingCase(
            name: "malformed account UUID", arguments: ["restore", "--account", "7e3fb20b-4cdb-47cc-936d"],
            message: "--account must be a UUID"),
        FailingCase(
            name: "report --by nonsense", arguments: ["report", "--by", "nonsense"],
            message: "--by takes one of product, currency, storefront, account, day, month, not 'nonsense'"),
        FailingCase(
            name: "bad --since date", arguments: ["report", "--since", "2025-13-45"], message: "--since takes a date"),
        FailingCase(
            name: "--since after --until", arguments: ["report", "--since", "2025-10-02", "--until", "2025-10-01"],
            message: "--since takes a date before until's (2025-10-01), not '2025-10-02'"),
        FailingCase(
            name: "--commission 150%", arguments: ["report", "--commission", "150%"],
            message: "--commission takes a rate"),
        FailingCase(
            name: "a commission that rounds to 100%", arguments: ["report", "--commission", "99.9999999%"],
            message: "--commission takes a rate"),
        FailingCase(name: "option without its value", arguments: ["report", "--by"], message: "--by needs a value"),
        FailingCase(name: "finish without ids", arguments: ["finish"], message: "give at least one transaction id"),
        FailingCase(
            name: "a bundle id with a slash",
            arguments: ["verify", "--environment", "Sandbox", "--bundle-id", "com.a,com/b,"],
            message: "--bundle-id lists 'com/b', which is no bundle id (letters, digits, '-' and '.')"),
        FailingCase(
            name: "a bundle id with a space in the environment", arguments: ["verify", "--environment", "Sandbox"],
            message: "TIPLEDGER_BUNDLE_ID lists 'com.example app', which is no bundle id",
            environment: ["TIPLEDGER_BUNDLE_ID": "com.example app"]),
        FailingCase(
            name: "a bundle id with a space",
            arguments: ["verify", "--environment", "Sandbox", "--bundle-id", "com.example app"],
            message: "--bundle-id lists 'com.example app', which is no bundle id"),
        FailingCase(
            name: "an option given twice", arguments: ["report", "--since", "2026-01-01", "--since=2026-02-01"],
            message: "--since is given more than once"),
        FailingCase(
            name: "a global option given twice", arguments: ["--db", "a.sqlite", "pending", "--db", "b.sqlite"],
            message: "--db is given more than once"),
        FailingCase(name: "backup without a path", arguments: ["backup"], message: "give exactly one destination"),
        FailingCase(
            name: "backup to an empty path", arguments: ["backup", ""],
            message: "the destination PATH needs a file name"),
        FailingCase(
            name: "backup into memory", arguments: ["backup", ":memory:"],
            message: "the destination PATH :memory: would be a database in memory, which keeps nothing"),
        FailingCase(
            name: "backup to an SQLite URI", arguments: ["backup", "file:copy.sqlite"],
            message: "the destination PATH file:copy.sqlite would be read as an SQLite URI"),
        FailingCase(name: "testkit without a subcommand", arguments: ["testkit"], message: "say which"),

        FailingCase(
            name: "testkit --revocation-percentage finer than Apple's milliunits",
            arguments: ["testkit", "notification", "--type", "REFUND", "--revocation-percentage", "33.3335"],
            message: "--revocation-percentage takes a percentage above 0 and up to 100, with at most three decimals "
                + "(Apple's milliunits), not '33.3335'"),
        FailingCase(
            name: "testkit --accounts without --count", arguments: ["testkit", "transaction", "--accounts", "3"],
            message: "--accounts shares out the tips of --count N; give --count"),
        FailingCase(name: "empty --db", arguments: ["report", "--db", ""], message: "--db needs a file name"),
        FailingCase(
            name: "--db in memory", arguments: ["verify", "--db", ":memory:"],
            message: "--db :memory: would be a database in memory, which keeps nothing"),
        FailingCase(
            name: "--db as an SQLite URI", arguments: ["migrate", "--db", "file:ledger.sqlite?mode=memory"],
            message: "--db file:ledger.sqlite?mode=memory would be read as an SQLite URI"),
        FailingCase(
            name: "serve --connection-limit beyond the server's", arguments: ["serve", "--connection-limit", "70000"],
            message: "--connection-limit must be a whole number from 1 to 65536, not '70000'"),
        FailingCase(
            name: "serve with more connections per client than in all",
            arguments: ["serve", "--connection-limit", "64", "--connections-per-client", "100"],
            message: "--connections-per-client (100) must be at most --connection-limit (64)"),
        FailingCase(
            name: "serve with fewer connections than threads",
            arguments: ["serve", "--threads", "8", "--connection-limit", "4"],
            message: "--connection-limit (4) must be at least --threads (8)"),
        FailingCase(
            name: "serve --header-timeout of zero", arguments: ["serve", "--header-timeout", "0"],
            message: "--header-timeout must be a whole number from 1 to 3600, not '0'"),
    ]

    @Test(arguments: usageErrors)
    func usageErrorExitsWith64AndAHint(_ failing: FailingCase) async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                failing.arguments, input: .text(failing.input), environment: failing.environment, in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            Self.expectErrorLines(result, containing: failing.message, hint: true)
            #expect(!directory.exists("tipledger.sqlite"), "a usage error creates no ledger")
        }
    }

    /// A mistyped command is answered with the nearest one (at most two letters away); a word
    /// far from every command gets the plain hint.
    @Test(arguments: [
        ("verfy", "did you mean 'verify'? "), ("reprot", "did you mean 'report'? "),
        ("restor", "did you mean 'restore'? "), ("frobnicate", ""),
    ])
    func anUnknownCommandSuggestsTheNearestOne(_ typed: String, _ suggestion: String) async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run([typed], in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            Self.expectErrorLines(result, containing: "unknown command '\(typed)'", hint: true)
            #expect(result.errLines.last == "hint: \(suggestion)run 'tipledger --help' for the list of commands")
        }
    }

    /// A bad option of a command points to that command's help.
    @Test(arguments: [
        ["report", "--by"], ["serve", "--threads", "x"], ["testkit", "transaction", "--quantity", "0"],
        ["verify", "--frobnicate"], ["finish", "--frobnicate", "1"], ["report", "--environment", "Staging"],
        ["verify", "--format", "xml"], ["report", "--db", ""],
    ])
    func aBadOptionPointsToItsCommandsHelp(_ arguments: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(arguments, in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            #expect(result.errLines.last == "hint: run 'tipledger \(arguments[0]) --help' for usage")
        }
    }

    @Test func globalOptionsMayComeBeforeOrAfterTheCommand() async throws {
        try await TemporaryDirectory.with { directory in
            async let before = TipLedgerBinary.run(["--db", "before.sqlite", "migrate"], in: directory.path)
            async let after = TipLedgerBinary.run(["migrate", "--db", "after.sqlite"], in: directory.path)
            async let joined = TipLedgerBinary.run(["--db=joined.sqlite", "migrate"], in: directory.path)
            async let help = TipLedgerBinary.run(["--db", "x.sqlite", "verify", "--help"], in: directory.path)
            let results = try await [before, after, joined, help]
            for result in results { #expect(result.exited(0), "\(result.summary)") }
            #expect(directory.exists("before.sqlite") && directory.exists("after.sqlite"))
            #expect(directory.exists("joined.sqlite"))
            #expect(results[3].out.hasPrefix("Usage: tipledger verify"))
        }
    }

    @Test func successExitsWith0AndWritesNothingToStandardError() async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(["migrate", "--db", "ledger.sqlite"], in: directory.path)
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.err.isEmpty)
            #expect(result.out.hasPrefix("ledger.sqlite: set up, schema version "))
        }
    }

    @Test func rejectedLineInVerifyExitsWith1AndKeepsGoing() async throws {
        let good = try Fixtures.text("real/sandbox-transaction-04.jws")
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                ["verify", "--dry-run", "--environment", "Sandbox", "--bundle-id", "com.loki-project.loki-messenger"],
                input: .text("\(good)\nnot a token\n\(good)\n"), in: directory.path)
            #expect(result.exited(1), "\(result.summary)")
            #expect(result.err.isEmpty)
            #expect(
                result.outLines == [
                    "line 1: ok transaction Sandbox 2000001024998954 com.getsession.org.pro_sub verified",
                    "line 2: rejected malformed_jws (INVALID_JWT_FORMAT): a JWS has exactly three parts separated by '.'",
                    "line 3: ok transaction Sandbox 2000001024998954 com.getsession.org.pro_sub verified",
                    "3 lines: 2 accepted, 1 rejected",
                ])
        }
    }

    /// Output that never arrived fails the command, after its work was done: a report written
    /// to a full disk must not look like a report.
    @Test(arguments: [["migrate"], ["report", "--format", "csv"], ["pending", "--format", "json"]])
    func standardOutputThatCannotBeWrittenExitsWith74(_ command: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            let result = try await Subprocess(
                executable: "/bin/sh",
                arguments: ["-c", #"exec "$@" > /dev/full"#, "sh", try TipLedgerBinary.path()] + command + [
                    "--db", "l.sqlite",
                ],
                environment: Subprocess.baseEnvironment(), directory: directory.path
            ).run()
            #expect(result.exited(74), "\(result.summary)")
            #expect(result.errLines == ["error: cannot write standard output: No space left on device"])
        }
    }

    /// testkit signs prices as the App Store has them: to the currency's minor unit.
    @Test(arguments: [
        ("JPY", "120.5", "--price in JPY is a whole amount (JPY has no minor unit)"),
        ("USD", "0.995", "--price in USD has at most 2 decimals"),
    ])
    func testkitRefusesAPriceFinerThanItsCurrency(_ currency: String, _ price: String, _ message: String)
        async throws
    {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--currency", currency, "--price", price],
                in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            Self.expectErrorLines(result, containing: message, hint: true)
        }
        let kuwaiti = try await TipLedgerBinary.run(
            ["testkit", "transaction", "--keys", keys, "--currency", "KWD", "--price", "1.995"], in: keys)
        #expect(kuwaiti.exited(0), "\(kuwaiti.summary)")
    }

    /// Standard input that cannot be read (here a directory) is an I/O failure, not bad input.
    @Test(arguments: [["verify", "--dry-run"], ["testkit", "notification", "--type", "REFUND", "--transaction", "-"]])
    func standardInputThatCannotBeReadExitsWith74(_ command: [String]) async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                command + SharedInputs.acceptingTestkit(keys: keys), input: .file(directory.path), in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            #expect(result.errLines == ["error: reading standard input failed: Is a directory"])
        }
    }

    /// A signed version of a recorded transaction with another purchase in it is a rejected
    /// line, not a ledger failure: exit 1, and the rest of the input is recorded.
    @Test func aVersionContradictingTheRecordedPurchaseIsARejectedLine() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let signing = ["testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId]
            let same = [
                "--transaction-id", "2000000000000777", "--purchase-date", "2026-11-01T10:00:00Z", "--account",
                "7e3fb20b-4cdb-47cc-936d-99d65f608138",
            ]
            async let first = TipLedgerBinary.run(signing + same + ["--price", "0.99"], in: directory.path)
            async let second = TipLedgerBinary.run(
                signing + same + ["--price", "9.99", "--signed-date", "2026-11-02T10:00:00Z"], in: directory.path)
            async let other = TipLedgerBinary.run(signing, in: directory.path)
            let tokens = try await [first, second, other]
            for token in tokens { try #require(token.exited(0), "\(token.summary)") }

            let result = try await TipLedgerBinary.run(
                ["verify", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys),
                input: .text(tokens.map(\.out).joined()), in: directory.path)

            #expect(result.exited(1), "\(result.summary)")
            #expect(result.err.isEmpty)
            #expect(
                result.outLines[1]
                    == "line 2: rejected invalid_payload (INVALID_JWT_FORMAT): it contradicts the recorded transaction "
                    + "2000000000000777: its price differs")
            #expect(result.outLines.last == "3 lines: 2 accepted, 1 rejected")
        }
    }

    /// In the ledger, not only on standard output: rejected lines, among them one that
    /// contradicts a tip recorded earlier in the run, leave nothing, and every good line around
    /// them is recorded, across the pipeline's batch boundaries (128 lines, then 256).
    @Test func rejectedLinesWriteNothingAndTheGoodOnesAroundThemAreRecorded() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let contradiction = try await TipLedgerBinary.run(
                [
                    "testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId, "--transaction-id",
                    "2000000000000777", "--price", "9.99", "--signed-date", "2026-11-02T10:00:00Z",
                ],
                in: directory.path)
            let original = try await TipLedgerBinary.run(
                [
                    "testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId, "--transaction-id",
                    "2000000000000777", "--price", "0.99",
                ],
                in: directory.path)
            // Validly signed, but over the largest price the ledger adds up.
            let overpriced = try await TipLedgerBinary.run(
                [
                    "testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId, "--transaction-id",
                    "2000000000000778", "--price", "99999999999",
                ],
                in: directory.path)
            try #require(contradiction.exited(0) && original.exited(0) && overpriced.exited(0))
            var good = Array(tips.lines[..<300])
            good[3] = original.outLines[0]
            var input = good
            let badSignature = { (token: String) -> String in
                var characters = Array(token)
                let index = characters.count - 10
                characters[index] = characters[index] == "A" ? "B" : "A"
                return String(characters)
            }
            // Inserted from the front, so the positions are those of the final input.
            for (position, bad) in [
                (5, "{}"), (127, badSignature(tips.lines[400])), (128, "garbage"), (257, contradiction.outLines[0]),
                (258, overpriced.outLines[0]),
            ] {
                input.insert(bad, at: position)
            }

            let result = try await TipLedgerBinary.run(
                ["verify", "--format", "json", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys),
                input: .text(input.joined(separator: "\n") + "\n"), in: directory.path)

            #expect(result.exited(1), "\(result.summary)")
            let reports = try result.jsonLines()
            #expect(reports.count == input.count)
            let rejected = reports.indices.filter { reports[$0]["ok"] as? Bool == false }
            #expect(rejected == [5, 127, 128, 257, 258])
            #expect(reports[258]["error"] as? String == "invalid_payload")
            #expect((reports[258]["message"] as? String)?.hasSuffix("so it cannot be recorded") == true)
            func value(_ sql: String) async throws -> String {
                try await SQLiteShell.value("l.sqlite", sql, in: directory.path)
            }
            #expect(try await value("SELECT count(*) FROM transactions") == String(good.count))
            #expect(try await value("SELECT count(*) FROM evidence") == String(good.count))
            #expect(
                try await value("SELECT price_milli FROM transactions WHERE transaction_id = '2000000000000777'")
                    == "990")
            #expect(
                try await value("SELECT count(*) FROM events WHERE transaction_id = '2000000000000777'")
                    == "2")  // recorded and finished, nothing of the contradiction
        }
    }

    @Test func finishingAnUnknownIdExitsWith1() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            let result = try await TipLedgerBinary.run(
                ["finish", "--db", "l.sqlite", "2000000000000999"], in: directory.path)
            #expect(result.exited(1), "\(result.summary)")
            #expect(result.outLines == ["2000000000000999: not found"])
            let json = try await TipLedgerBinary.run(
                ["finish", "--db", "l.sqlite", "--format", "json", "2000000000000999"], in: directory.path)
            #expect(json.exited(1))
            let outcome = try #require(try json.jsonLines().first)
            #expect(outcome["transactionId"] as? String == "2000000000000999")
            #expect(outcome["outcome"] as? String == "not_found")
        }
    }

    /// Rejections that usually mean a missing setting end the run with one hint each on
    /// standard error, once however many lines had them.
    @Test func rejectionsOfAMissingSettingEndWithAHint() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let tips = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId, "--count", "3"],
                in: directory.path)
            try #require(tips.exited(0), "\(tips.summary)")
            let appleOnly = try await TipLedgerBinary.run(
                ["verify", "--dry-run"] + Self.sandbox, input: .text(tips.out), in: directory.path)
            #expect(appleOnly.exited(1))
            #expect(
                appleOnly.errLines == [
                    "hint: only Apple's root is trusted; for tokens signed by testkit or Xcode, pass --keys DIR or --root FILE"
                ])
            let otherEnvironment = try await TipLedgerBinary.run(
                [
                    "verify", "--dry-run", "--keys", keys, "--environment", "Xcode", "--bundle-id",
                    SharedInputs.bundleId,
                ],
                input: .text(tips.out), in: directory.path)
            #expect(otherEnvironment.exited(1))
            #expect(
                otherEnvironment.errLines == [
                    "hint: the accepted environments are Xcode; list others with --environment"
                ])
            let accepted = try await TipLedgerBinary.run(
                ["verify", "--dry-run"] + SharedInputs.acceptingTestkit(keys: keys), input: .text(tips.out),
                in: directory.path)
            #expect(accepted.exited(0) && accepted.err.isEmpty, "\(accepted.summary)")
        }
    }

    /// testkit does not sign a Production notification that verify would always reject.
    @Test func aProductionNotificationWithoutTheAppsAppleIdIsAUsageError() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let signing = ["testkit", "notification", "--keys", keys, "--type", "TEST", "--environment", "Production"]
            let refused = try await TipLedgerBinary.run(signing, in: directory.path)
            #expect(refused.exited(64), "\(refused.summary)")
            Self.expectErrorLines(
                refused, containing: "a Production notification carries the app's Apple ID: give --app-apple-id",
                hint: true)
            let signed = try await TipLedgerBinary.run(signing + ["--app-apple-id", "1234567890"], in: directory.path)
            #expect(signed.exited(0) && signed.outLines.count == 1, "\(signed.summary)")
        }
    }

    @Test func aPriceWithDecimalsInACurrencyWithoutAMinorUnitIsAUsageError() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let signing = ["testkit", "transaction", "--keys", keys, "--currency", "JPY"]
            let refused = try await TipLedgerBinary.run(signing + ["--price", "1.5"], in: directory.path)
            #expect(refused.exited(64), "\(refused.summary)")
            Self.expectErrorLines(refused, containing: "--price in JPY is a whole amount", hint: true)
            let signed = try await TipLedgerBinary.run(signing + ["--price", "150"], in: directory.path)
            #expect(signed.exited(0) && signed.outLines.count == 1, "\(signed.summary)")
        }
    }

    @Test func reverifyFailureExitsWith1() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let tip = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId], in: directory.path)
            try #require(tip.exited(0), "\(tip.summary)")
            let record = try await TipLedgerBinary.run(
                ["verify", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys), input: .text(tip.out),
                in: directory.path)
            try #require(record.exited(0), "\(record.summary)")
            async let same = TipLedgerBinary.run(
                ["reverify", "--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys), in: directory.path)
            async let otherApp = TipLedgerBinary.run(
                [
                    "reverify", "--db", "l.sqlite", "--keys", keys, "--environment", "Sandbox", "--bundle-id",
                    "com.other",
                ],
                in: directory.path)
            async let sameInJSON = TipLedgerBinary.run(
                ["reverify", "--db", "l.sqlite", "--format", "json"] + SharedInputs.acceptingTestkit(keys: keys),
                in: directory.path)
            async let otherAppInJSON = TipLedgerBinary.run(
                [
                    "reverify", "--db", "l.sqlite", "--format", "json", "--keys", keys, "--environment", "Sandbox",
                    "--bundle-id", "com.other",
                ],
                in: directory.path)
            let (passing, failing) = try await (same, otherApp)
            #expect(passing.exited(0), "\(passing.summary)")
            #expect(
                passing.outLines == [
                    "integrity check: ok",
                    "1 transaction and 0 notifications checked against the ledger's rules, 0 broken",
                    "1 stored payload checked, 0 failed",
                ])
            #expect(failing.exited(1), "\(failing.summary)")
            #expect(failing.err.isEmpty)
            #expect(failing.outLines.last == "1 stored payload checked, 1 failed")
            let id = try SignedTip(tip.outLines[0]).transactionId
            #expect(failing.outLines.first?.hasPrefix("Sandbox transaction \(id): wrong_bundle_id: ") == true)

            // In JSON, one object, with the count whether or not anything failed.
            let (passingJSON, failingJSON) = try await (sameInJSON, otherAppInJSON)
            #expect(passingJSON.exited(0) && failingJSON.exited(1), "\(passingJSON.summary) \(failingJSON.summary)")
            #expect(passingJSON.outLines == [#"{"integrity":[],"invariants":[],"checked":1,"failed":0,"failures":[]}"#])
            let failed = try #require(try failingJSON.jsonLines().first)
            #expect(failingJSON.outLines.count == 1)
            #expect(JSONValue.int64(failed["checked"]) == 1 && JSONValue.int64(failed["failed"]) == 1)
            let failure = try #require((failed["failures"] as? [[String: Any]])?.first)
            #expect(failure["transactionId"] as? String == id)
            #expect(failure["kind"] as? String == "transaction")
            #expect(failure["error"] as? String == "wrong_bundle_id")

            // Without the testkit chain trusted, the audit ends as verify does, with the hint.
            let untrusted = try await TipLedgerBinary.run(
                ["reverify", "--db", "l.sqlite", "--environment", "Sandbox", "--bundle-id", SharedInputs.bundleId],
                in: directory.path)
            #expect(untrusted.exited(1), "\(untrusted.summary)")
            #expect(untrusted.outLines.first?.contains(": untrusted_chain: ") == true, "\(untrusted.out)")
            #expect(
                untrusted.errLines == [
                    "hint: only Apple's root is trusted; for tokens signed by testkit or Xcode, pass --keys DIR or --root FILE"
                ])
        }
    }

    @Test func reportWithAMalformedCatalogExitsWith64NamingTheFile() async throws {
        try await TemporaryDirectory.with { directory in
            try directory.write("{\"products\": [", to: "Broken.storekit")
            try await Self.migrateLedger(in: directory)
            let result = try await TipLedgerBinary.run(
                ["report", "--db", "l.sqlite", "--catalog", "Broken.storekit"], in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            Self.expectErrorLines(result, containing: "Broken.storekit", hint: true)
        }
    }

    @Test func pendingWithACatalogWithoutProductsExitsWith64() async throws {
        try await TemporaryDirectory.with { directory in
            try directory.write(
                #"{"identifier": "X", "products": [], "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#,
                to: "Empty.storekit")
            try await Self.migrateLedger(in: directory)
            let result = try await TipLedgerBinary.run(
                ["pending", "--db", "l.sqlite", "--catalog", "Empty.storekit"], in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            Self.expectErrorLines(result, containing: "Empty.storekit: the catalog has no products", hint: true)
        }
    }

    @Test func restoreFromALedgerThatDoesNotExistExitsWith74() async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                ["restore", "--db", "missing.sqlite", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138"],
                in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(result, containing: "no ledger at missing.sqlite", hint: true)
            #expect(!directory.exists("missing.sqlite"), "a read-only command must not create the ledger")
        }
    }

    @Test(arguments: [["report"], ["migrate"], ["verify"] + sandbox])
    func aLedgerPathNamingADirectoryExitsWith74SayingSo(_ command: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            try FileManager.default.createDirectory(
                atPath: directory.file("ledgers"), withIntermediateDirectories: false)
            let result = try await TipLedgerBinary.run(
                command + ["--db", "ledgers"], input: .text(""), in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(result, containing: "ledgers is a directory, not a ledger", hint: true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("ledgers")).isEmpty)
        }
    }

    @Test(arguments: [["report"], ["pending"], ["restore", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138"]])
    func aReadingCommandOnAnEmptyFileExitsWith74AndLeavesItEmpty(_ command: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            _ = try directory.write("", to: "empty.sqlite")
            let result = try await TipLedgerBinary.run(command + ["--db", "empty.sqlite"], in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(result, containing: "empty.sqlite is an empty file, not a ledger", hint: true)
            #expect(try directory.read("empty.sqlite").isEmpty)
        }
    }

    /// An SQLite database with no schema (an interrupted backup once SQLite rolled it back) is
    /// not taken for a new, empty ledger by a command that does not record: refused, unchanged.
    @Test(arguments: [
        ["report"], ["pending"], ["restore", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138"],
        ["finish", "2000000000000001"],
    ])
    func aCommandThatDoesNotRecordRefusesADatabaseWithNoLedgerInIt(_ command: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            _ = try await SQLiteShell.rows("empty.sqlite", "VACUUM;", in: directory.path)
            let before = try directory.read("empty.sqlite")
            let result = try await TipLedgerBinary.run(command + ["--db", "empty.sqlite"], in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(
                result, containing: "empty.sqlite is an SQLite database with no ledger in it", hint: true)
            // `finish` opens it to write, which sets the write-ahead log's flag in the header.
            if command[0] != "finish" { #expect(try directory.read("empty.sqlite") == before) }
            #expect(
                try await SQLiteShell.value(
                    "empty.sqlite",
                    "SELECT (SELECT user_version FROM pragma_user_version) + count(*) FROM sqlite_schema;",
                    in: directory.path) == "0")
        }
    }

    @Test func ledgerWithANewerSchemaExitsWith74NamingBothVersions() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            let known = try #require(
                Int(try await SQLiteShell.value("l.sqlite", "PRAGMA user_version", in: directory.path)))
            #expect(known >= 1)
            _ = try await SQLiteShell.rows("l.sqlite", "PRAGMA user_version = \(known + 1)", in: directory.path)
            for arguments in [["report"], ["migrate"], ["pending"]] {
                let result = try await TipLedgerBinary.run(arguments + ["--db", "l.sqlite"], in: directory.path)
                #expect(result.exited(74), "\(arguments): \(result.summary)")
                Self.expectErrorLines(
                    result, containing: "schema version \(known + 1), newer than this tipledger's \(known)", hint: true)
            }
            let version = try await SQLiteShell.value("l.sqlite", "PRAGMA user_version", in: directory.path)
            #expect(version == String(known + 1), "the newer ledger is left alone")
        }
    }

    @Test func backupOntoAnExistingFileExitsWith74() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            try directory.write("keep me", to: "taken.sqlite")
            let result = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "taken.sqlite"], in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(result, containing: "taken.sqlite already exists", hint: true)
            #expect(try directory.read("taken.sqlite") == Data("keep me".utf8))
            let fresh = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            #expect(fresh.exited(0), "\(fresh.summary)")
            #expect(try Ledger.open(path: directory.file("copy.sqlite")).integrityCheck() == "ok")
        }
    }

    /// A backup that fails part way (here a file size limit, as a full disk would) leaves
    /// nothing at PATH, nor a file of its own: the next try succeeds.
    @Test func aBackupThatFailsLeavesNoFileBehind() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            // 64 blocks of 512 bytes, under the copy's size; writes past it fail (EFBIG) rather
            // than kill the process, as SIGXFSZ is ignored.
            let limited = try await Subprocess(
                executable: "/bin/sh",
                arguments: [
                    "-c", #"ulimit -f 64; trap '' XFSZ; exec "$0" "$@""#, try TipLedgerBinary.path(), "backup", "--db",
                    "l.sqlite", "copy.sqlite",
                ],
                environment: Subprocess.baseEnvironment(), directory: directory.path, input: .none
            ).run()
            #expect(limited.exited(74), "\(limited.summary)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy") }
                    == [])
            let retry = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            #expect(retry.exited(0), "\(retry.summary)")
            #expect(try Ledger.open(path: directory.file("copy.sqlite")).integrityCheck() == "ok")
        }
    }

    /// Another backup's leftover (or one in progress) beside PATH neither fails this one nor
    /// is removed by it.
    @Test func aBackupLeavesAnotherBackupsPartialFileAlone() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            try directory.write("another backup's", to: "copy.sqlite.partial-1")
            let backup = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            #expect(backup.exited(0), "\(backup.summary)")
            #expect(try directory.read("copy.sqlite.partial-1") == Data("another backup's".utf8))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy") }
                    .sorted()
                    == ["copy.sqlite", "copy.sqlite.partial-1"])
        }
    }

    @Test(arguments: [["report"], ["migrate"], ["verify"] + sandbox])
    func aFileThatIsNotADatabaseExitsWith74NamingIt(_ arguments: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            let text = "shopping list, not a ledger\n"
            try directory.write(text, to: "notes.txt")
            let result = try await TipLedgerBinary.run(arguments + ["--db", "notes.txt"], in: directory.path)
            #expect(result.exited(74), "\(arguments): \(result.summary)")
            Self.expectErrorLines(
                result, containing: "notes.txt is not an SQLite database (SQLite code 26)", hint: true)
            #expect(result.errLines.last == "hint: pass --db with the ledger's path")
            #expect(try directory.read("notes.txt") == Data(text.utf8), "the file is left as it was")
            #expect(!directory.exists("notes.txt-wal") && !directory.exists("notes.txt-shm"))
        }
    }

    @Test(arguments: [["report"], ["migrate"], ["verify"] + sandbox])
    func aDamagedLedgerExitsWith74SayingSo(_ arguments: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "whole.sqlite"], in: directory.path)
            try #require(migrate.exited(0), "\(migrate.summary)")
            // The first two pages of it: a header that promises more pages than the file has.
            let cut = try directory.read("whole.sqlite").prefix(16384)
            try cut.write(to: URL(fileURLWithPath: directory.file("cut.sqlite")))
            let result = try await TipLedgerBinary.run(arguments + ["--db", "cut.sqlite"], in: directory.path)
            #expect(result.exited(74), "\(arguments): \(result.summary)")
            Self.expectErrorLines(
                result,
                containing: "the ledger cut.sqlite is damaged: database disk image is malformed (SQLite code 11)",
                hint: true)
            #expect(
                result.errLines.last
                    == "hint: audit it with tipledger reverify, and restore it from a copy made with tipledger backup (see the README)"
            )
            #expect(try directory.read("cut.sqlite") == cut, "the file is left as it was")
        }
    }

    /// Damage the opening checks do not reach, met by a query, is named as damage too.
    @Test func damageFoundByAQueryExitsWith74SayingSo() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            try await Self.overwriteFirstPage(of: "transactions", in: "l.sqlite", directory: directory) { size in
                Data(repeating: 0xA5, count: size)
            }

            let result = try await TipLedgerBinary.run(["report", "--db", "l.sqlite"], in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            #expect(
                result.errLines == [
                    "error: the ledger is damaged: database disk image is malformed (SQLite code 11)",
                    "hint: audit it with tipledger reverify, and restore it from a copy made with tipledger backup (see the README)",
                ])
        }
    }

    @Test func aBadBundleIdInTheEnvironmentFailsOnlyWhatVerifies() async throws {
        try await TemporaryDirectory.with { directory in
            let environment = ["TIPLEDGER_BUNDLE_ID": "com.example app,"]
            let migrate = try await TipLedgerBinary.run(
                ["migrate", "--db", "l.sqlite"], environment: environment, in: directory.path)
            #expect(migrate.exited(0), "\(migrate.summary)")
            let report = try await TipLedgerBinary.run(
                ["report", "--db", "l.sqlite"], environment: environment, in: directory.path)
            #expect(report.exited(0), "\(report.summary)")
        }
    }

    /// A ledger the process may not write, with the modes of its directory and file.
    struct ReadOnlyCase: Sendable, CustomTestStringConvertible {
        let name: String
        let directoryMode: Int
        let fileMode: Int
        /// An empty file (a ledger not set up yet) instead of a migrated ledger.
        var empty = false
        let command: [String]
        let message: String
        var hint =
            "make the ledger and its directory writable by this user (SQLite creates the -wal and -shm files beside the ledger)"
        var testDescription: String { name }
    }

    static let unwritableHint =
        "run tipledger as the ledger's owner, or let this user write it; report, restore, pending and reverify only read it"

    static let readOnlyCases: [ReadOnlyCase] = [
        ReadOnlyCase(
            name: "read-only directory, to write", directoryMode: 0o555, fileMode: 0o644,
            command: ["finish", "2000000000000001"],
            message: "the directory of the ledger ledger/l.sqlite is read-only (SQLite code 1544)"),
        ReadOnlyCase(
            name: "read-only ledger in a read-only directory, to write", directoryMode: 0o555, fileMode: 0o444,
            command: ["finish", "2000000000000001"],
            message: "the ledger ledger/l.sqlite and its directory are read-only (SQLite code 1544)"),
        ReadOnlyCase(
            name: "read-only empty ledger, to set up", directoryMode: 0o755, fileMode: 0o444, empty: true,
            command: ["migrate"], message: "this user may not write the ledger ledger/l.sqlite",
            hint: unwritableHint),
        // SQLite would open these read-only and leave -wal and -shm files of this user's beside
        // them, which the owner could not write.
        ReadOnlyCase(
            name: "read-only ledger in a writable directory, to migrate", directoryMode: 0o755, fileMode: 0o444,
            command: ["migrate"], message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        ReadOnlyCase(
            name: "read-only ledger in a writable directory, to finish", directoryMode: 0o755, fileMode: 0o444,
            command: ["finish", "2000000000000001"], message: "this user may not write the ledger ledger/l.sqlite",
            hint: unwritableHint),
        ReadOnlyCase(
            name: "read-only ledger in a writable directory, to record", directoryMode: 0o777, fileMode: 0o444,
            command: ["verify", "--bundle-id", "com.example.tipjar", "--environment", "Sandbox"],
            message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        ReadOnlyCase(
            name: "read-only ledger in a writable directory, to serve", directoryMode: 0o755, fileMode: 0o444,
            command: [
                "serve", "--bundle-id", "com.example.tipjar", "--environment", "Sandbox", "--listen",
                "203.0.113.1:18080",
            ],
            message: "this user may not write the ledger ledger/l.sqlite", hint: unwritableHint),
        ReadOnlyCase(
            name: "unreadable ledger", directoryMode: 0o755, fileMode: 0o000, command: ["report"],
            message: "this user may not read the ledger ledger/l.sqlite (SQLite code 14)",
            hint: "run tipledger as the ledger's owner, or let this user read it"),
    ]

    @Test(
        .enabled(if: permissionsBind, "running as root without setpriv(1) to give up root's right to write anywhere"),
        arguments: readOnlyCases)
    func aLedgerThatCannotBeWrittenExitsWith74SayingWhich(_ readOnly: ReadOnlyCase) async throws {
        try await TemporaryDirectory.with { directory in
            let folder = directory.file("ledger")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            if readOnly.empty {
                try directory.write("", to: "ledger/l.sqlite")
            } else {
                let migrate = try await TipLedgerBinary.run(["migrate", "--db", "ledger/l.sqlite"], in: directory.path)
                try #require(migrate.exited(0), "\(migrate.summary)")
            }
            let before = try directory.read("ledger/l.sqlite")
            let files = FileManager.default
            try files.setAttributes([.posixPermissions: readOnly.fileMode], ofItemAtPath: folder + "/l.sqlite")
            try files.setAttributes([.posixPermissions: readOnly.directoryMode], ofItemAtPath: folder)
            defer { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }

            let result = try await Self.runBoundByPermissions(
                readOnly.command + ["--db", "ledger/l.sqlite"], in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(result, containing: readOnly.message, hint: true)
            #expect(result.errLines.last == "hint: \(readOnly.hint)")
            #expect(try directory.read("ledger/l.sqlite") == before, "the ledger is left as it was")
            #expect(try files.contentsOfDirectory(atPath: folder) == ["l.sqlite"])
        }
    }

    /// A ledger with a tip and its refund, recorded into `ledger` in `directory`.
    static func recordTipAndRefund(into ledger: String, in directory: TemporaryDirectory) async throws {
        let keys = try await SharedInputs.shared.keys()
        let tips = try await SharedInputs.shared.tips()
        let refund = try await TipLedgerBinary.run(
            ["testkit", "notification", "--keys", keys, "--type", "REFUND", "--transaction", "-"],
            input: .text(tips.lines[0] + "\n"), in: directory.path)
        try #require(refund.exited(0), "\(refund.summary)")
        let verify = try await TipLedgerBinary.run(
            ["verify", "--db", ledger] + SharedInputs.acceptingTestkit(keys: keys),
            input: .text([tips.lines[0], tips.lines[1], refund.outLines[0]].joined(separator: "\n") + "\n"),
            in: directory.path)
        try #require(verify.exited(0), "\(verify.summary)")
    }

    /// Overwrites the first page (the root) of `table` in `ledger` with `bytes(pageSize)`.
    static func overwriteFirstPage(
        of table: String, in ledger: String, directory: TemporaryDirectory, with bytes: (Int) -> Data
    ) async throws {
        let root = try await SQLiteShell.value(
            ledger, "SELECT rootpage FROM sqlite_schema WHERE name = '\(table)'", in: directory.path)
        let pageSize = try await SQLiteShell.value(ledger, "PRAGMA page_size", in: directory.path)
        let page = try #require(Int(root)), size = try #require(Int(pageSize))
        var file = try directory.read(ledger)
        file.replaceSubrange((page - 1) * size..<page * size, with: bytes(size))
        try file.write(to: URL(fileURLWithPath: directory.file(ledger)))
    }

    /// A ledger this user may not write, as an auditor may be given one.
    enum ReadOnlyCopy: String, CaseIterable, Sendable {
        /// A ledger in write-ahead-log mode, read-only, in a directory this user may write.
        case readOnlyFile
        /// The same in a read-only directory.
        case readOnlyDirectory
        /// A backup (rollback journal), read-only, in a read-only directory.
        case backupInReadOnlyDirectory
    }

    /// The commands that only read a ledger read one this user may not write, leave it as it
    /// is, and make no file beside it (files of this user there would keep the ledger's owner
    /// from writing it).
    @Test(.enabled(if: permissionsBind, "running as root without setpriv(1)"), arguments: ReadOnlyCopy.allCases)
    func aLedgerThisUserMayNotWriteIsRead(_ copy: ReadOnlyCopy) async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            let folder = directory.file("ledger")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            if copy == .backupInReadOnlyDirectory {
                let backup = try await TipLedgerBinary.run(
                    ["backup", "--db", "l.sqlite", "ledger/l.sqlite"], in: directory.path)
                try #require(backup.exited(0), "\(backup.summary)")
            } else {
                try FileManager.default.copyItem(atPath: directory.file("l.sqlite"), toPath: folder + "/l.sqlite")
            }
            let files = FileManager.default
            try files.setAttributes([.posixPermissions: 0o444], ofItemAtPath: folder + "/l.sqlite")
            if copy != .readOnlyFile {
                try files.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            }
            defer { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            let before = try directory.read("ledger/l.sqlite")

            let report = try await Self.runBoundByPermissions(
                ["report", "--db", "ledger/l.sqlite", "--format", "json"], in: directory.path)
            let pending = try await Self.runBoundByPermissions(
                ["pending", "--db", "ledger/l.sqlite"], in: directory.path)
            let backup = try await Self.runBoundByPermissions(
                ["backup", "--db", "ledger/l.sqlite", "copy.sqlite"], in: directory.path)

            #expect(report.exited(0), "\(report.summary)")
            let rows = try #require(try report.jsonLines().first?["rows"] as? [[String: Any]])
            #expect(rows.contains { (JSONValue.int64($0["refunded_milli"]) ?? 0) > 0 }, "\(rows)")
            #expect(pending.exited(0), "\(pending.summary)")
            // SQLite 3.40's VACUUM INTO fails on a read-only connection to these tables.
            #expect(backup.exited(74), "\(backup.summary)")
            Self.expectErrorLines(
                backup, containing: "cannot back up ledger/l.sqlite: this user may not write it or its directory",
                hint: true)
            #expect(try directory.read("ledger/l.sqlite") == before, "the ledger is left as it was")
            #expect(try files.contentsOfDirectory(atPath: folder) == ["l.sqlite"])
        }
    }

    /// A -wal file without its -shm beside a ledger this user may not write: reading it would
    /// make the -shm file, this user's, which would keep the owner from writing; it is refused.
    @Test(.enabled(if: permissionsBind, "running as root without setpriv(1)"))
    func aReadOnlyLedgerWithALogButNoSharedMemoryFileIsRefused() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.migrateLedger(in: directory)
            _ = try directory.write("", to: "l.sqlite-wal")
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o444], ofItemAtPath: directory.file("l.sqlite"))

            let report = try await Self.runBoundByPermissions(["report", "--db", "l.sqlite"], in: directory.path)

            #expect(report.exited(74), "\(report.summary)")
            Self.expectErrorLines(
                report, containing: "the ledger l.sqlite has a -wal file but no -shm file this user can read",
                hint: true)
            #expect(!directory.exists("l.sqlite-shm"))
        }
    }

    /// A ledger reached through a symbolic link is written where the link leads: one in a
    /// read-only directory, leading to a ledger this user may write, is backed up.
    @Test(.enabled(if: permissionsBind, "running as root without setpriv(1)"))
    func aLedgerReachedThroughALinkInAReadOnlyDirectoryIsBackedUp() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            let links = directory.file("links")
            let files = FileManager.default
            try files.createDirectory(atPath: links, withIntermediateDirectories: false)
            try files.createSymbolicLink(atPath: links + "/l.sqlite", withDestinationPath: "../l.sqlite")
            try files.setAttributes([.posixPermissions: 0o555], ofItemAtPath: links)
            defer { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: links) }

            let backup = try await Self.runBoundByPermissions(
                ["backup", "--db", "links/l.sqlite", "copy.sqlite"], in: directory.path)

            #expect(backup.exited(0), "\(backup.summary)")
            #expect(try Ledger.open(path: directory.file("copy.sqlite")).integrityCheck() == "ok")
        }
    }

    /// Reading a backup, which keeps SQLite's rollback journal, leaves the file byte for byte
    /// as it was: it is not turned into a write-ahead-log ledger.
    @Test func readingABackupLeavesItAsItIs() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.recordTipAndRefund(into: "l.sqlite", in: directory)
            let backup = try await TipLedgerBinary.run(
                ["backup", "--db", "l.sqlite", "copy.sqlite"], in: directory.path)
            try #require(backup.exited(0), "\(backup.summary)")
            let before = try directory.read("copy.sqlite")

            for command in [
                ["report"], ["pending"],
                ["reverify"] + SharedInputs.acceptingTestkit(keys: try await SharedInputs.shared.keys()),
            ] {
                let result = try await TipLedgerBinary.run(command + ["--db", "copy.sqlite"], in: directory.path)
                #expect(result.exited(0), "\(command): \(result.summary)")
            }

            #expect(try directory.read("copy.sqlite") == before)
            #expect(try await SQLiteShell.value("copy.sqlite", "PRAGMA journal_mode", in: directory.path) == "delete")
        }
    }

    /// setpriv(1), which runs a program without the capabilities that let root write anywhere.
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether file permissions bind the binary as `runBoundByPermissions` runs it.
    static let permissionsBind = geteuid() != 0 || setpriv != nil

    /// Runs the binary so that file permissions bind it. Root writes anywhere through the
    /// capabilities CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH; as root, the binary runs under
    /// setpriv without them (and unable to regain them), still as root, so the owner's mode
    /// bits apply to it as to any other user's own files. Root without setpriv runs it as it
    /// is: a test that needs the permissions to bind is enabled only if `permissionsBind`.
    static func runBoundByPermissions(_ arguments: [String], in directory: String) async throws -> ProcessOutput {
        guard geteuid() == 0, let setpriv else { return try await TipLedgerBinary.run(arguments, in: directory) }
        let capabilities = "-dac_override,-dac_read_search"
        let command = [
            "--inh-caps=\(capabilities)", "--bounding-set=\(capabilities)", "--", try TipLedgerBinary.path(),
        ]
        return try await Subprocess(
            executable: setpriv, arguments: command + arguments, environment: Subprocess.baseEnvironment(),
            directory: directory
        ).run()
    }

    @Test func backupIntoAMissingDirectoryExitsWith74SayingSo() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.expectBackupRefused(to: "missing/copy.sqlite", because: "no such directory", in: directory)
            #expect(!directory.exists("missing"))
        }
    }

    @Test(.enabled(if: permissionsBind, "running as root without setpriv(1) to give up root's right to write anywhere"))
    func backupIntoADirectoryThisUserCannotWriteExitsWith74SayingSo() async throws {
        try await TemporaryDirectory.with { directory in
            let files = FileManager.default
            let folder = directory.file("locked")
            try files.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try files.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            defer { try? files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            try await Self.expectBackupRefused(
                to: "locked/copy.sqlite", because: "the directory is not writable by this user", in: directory)
        }
    }

    /// `backup` to `destination` fails with 74 giving `reason`, and leaves the ledger as it was.
    static func expectBackupRefused(
        to destination: String, because reason: String, in directory: TemporaryDirectory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let migrate = try await TipLedgerBinary.run(["migrate", "--db", "l.sqlite"], in: directory.path)
        try #require(migrate.exited(0), "\(migrate.summary)", sourceLocation: sourceLocation)
        let before = try directory.read("l.sqlite")

        let result = try await runBoundByPermissions(["backup", "--db", "l.sqlite", destination], in: directory.path)
        #expect(result.exited(74), "\(result.summary)", sourceLocation: sourceLocation)
        expectErrorLines(
            result, containing: "cannot write the backup to \(destination): \(reason)", hint: true,
            sourceLocation: sourceLocation)
        #expect(
            result.errLines.last == "hint: choose a path in an existing directory this user can write",
            sourceLocation: sourceLocation)
        #expect(
            try directory.read("l.sqlite") == before, "the ledger is left as it was", sourceLocation: sourceLocation)
        #expect(!directory.exists(destination), sourceLocation: sourceLocation)
    }

    @Test(arguments: [("missing.pem", "No such file or directory"), ("folder.pem", "it is a directory")])
    func unreadableRootFileExitsWith74(_ name: String, reason: String) async throws {
        try await TemporaryDirectory.with { directory in
            try FileManager.default.createDirectory(
                atPath: directory.file("folder.pem"), withIntermediateDirectories: true)
            let result = try await TipLedgerBinary.run(
                ["verify", "--dry-run", "--root", name] + Self.sandbox, input: .text("x\n"), in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(result, containing: "cannot read \(name): \(reason)", hint: false)
        }
    }

    @Test func aKeysDirectoryThatIsAFileExitsWith74SayingSo() async throws {
        try await TemporaryDirectory.with { directory in
            try directory.write("not a directory\n", to: "keys")
            let result = try await TipLedgerBinary.run(
                ["verify", "--dry-run", "--keys", "keys"] + Self.sandbox, input: .text("x\n"), in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            Self.expectErrorLines(
                result, containing: "cannot read the keys directory keys: it is not a directory", hint: false)
        }
    }

    /// Standard output is empty; standard error is `error: ...` (containing `message`), then
    /// `hint: ...` when `hint` is true, and nothing else.
    static func expectErrorLines(
        _ result: ProcessOutput, containing message: String, hint: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.out.isEmpty, "stdout must be empty: \(result.out.prefix(300))", sourceLocation: sourceLocation)
        let lines = result.errLines
        #expect(lines.first?.hasPrefix("error: ") == true, "\(result.err)", sourceLocation: sourceLocation)
        #expect(
            lines.first?.contains(message) == true, "'\(message)' not in: \(result.err)", sourceLocation: sourceLocation
        )
        if hint {
            #expect(lines.count == 2, "\(result.err)", sourceLocation: sourceLocation)
            #expect(
                lines.dropFirst().first?.hasPrefix("hint: ") == true, "\(result.err)", sourceLocation: sourceLocation)
        } else {
            #expect(lines.count <= 2, "\(result.err)", sourceLocation: sourceLocation)
        }
    }
}
