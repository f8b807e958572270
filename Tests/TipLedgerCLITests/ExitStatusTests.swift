// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore
import TipLedgerTestSupport

/// Exit statuses and the `error: ...` / `hint: ...` lines, each produced for real by running the
/// binary: 0 for success, 1 for input rejected line by line (the rest is still done), and, in
/// tables of `FailingCommand` rows in the files beside this one, 64 for a command line that
/// would not do, 74 for a ledger, file or stream that fails.
@Suite struct ExitStatusTests {
    static let sandbox = ["--environment", "Sandbox", "--bundle-id", "com.example.tipjar"]

    /// Sets up an empty ledger `l.sqlite` in `directory` with `migrate`.
    static func migrateLedger(in directory: TemporaryDirectory) async throws {
        let migrate = try await TipLedgerBinary.run(["migrate", "--db", "l.sqlite"], in: directory.path)
        try #require(migrate.exited(0), "\(migrate.summary)")
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

    /// Standard output is empty; standard error is `error: ...` (containing `message`), then
    /// `hint: ...` when `hint` is true, and nothing else.
    static func expectErrorLines(
        _ result: ProcessOutput, containing message: String, hint: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.out.isEmpty, "stdout must be empty: \(result.out.prefix(300))", sourceLocation: sourceLocation)
        let lines = result.errLines
        #expect(lines.first?.hasPrefix("error: ") == true, "\(result.err)", sourceLocation: sourceLocation)
        // An empty `message` asks for an error line, whatever it says.
        #expect(
            message.isEmpty || lines.first?.contains(message) == true, "'\(message)' not in: \(result.err)",
            sourceLocation: sourceLocation)
        if hint {
            #expect(lines.count == 2, "\(result.err)", sourceLocation: sourceLocation)
            #expect(
                lines.dropFirst().first?.hasPrefix("hint: ") == true, "\(result.err)", sourceLocation: sourceLocation)
        } else {
            #expect(lines.count <= 2, "\(result.err)", sourceLocation: sourceLocation)
        }
    }
}
