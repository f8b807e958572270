// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// Every global option's `TIPLEDGER_*` variable works, and the flag wins over it.
@Suite struct EnvironmentVariableTests {
    static let lokiBundle = "com.loki-project.loki-messenger"

    @Test func ledgerPathComesFromTIPLEDGER_DBUnlessDbIsGiven() async throws {
        try await TemporaryDirectory.with { directory in
            let variable = ["TIPLEDGER_DB": "from-variable.sqlite"]
            let viaVariable = try await TipLedgerBinary.run(["migrate"], environment: variable, in: directory.path)
            #expect(viaVariable.exited(0), "\(viaVariable.summary)")
            #expect(viaVariable.out.hasPrefix("from-variable.sqlite: "))
            let viaFlag = try await TipLedgerBinary.run(
                ["migrate", "--db", "from-flag.sqlite"], environment: variable, in: directory.path)
            #expect(viaFlag.exited(0), "\(viaFlag.summary)")
            #expect(viaFlag.out.hasPrefix("from-flag.sqlite: "))
            let unset = try await TipLedgerBinary.run(
                ["migrate"], environment: ["TIPLEDGER_DB": ""], in: directory.path)
            #expect(unset.out.hasPrefix("tipledger.sqlite: "), "an empty variable counts as unset")
            #expect(directory.exists("from-variable.sqlite"))
            #expect(directory.exists("from-flag.sqlite"))
            #expect(directory.exists("tipledger.sqlite"))
        }
    }

    @Test func bundleIdComesFromTIPLEDGER_BUNDLE_IDUnlessBundleIdIsGiven() async throws {
        let token = try Fixtures.text("real/sandbox-transaction-04.jws")
        try await TemporaryDirectory.with { directory in
            let variables = [
                "TIPLEDGER_BUNDLE_ID": "com.example.other,\(Self.lokiBundle)", "TIPLEDGER_ENVIRONMENT": "Sandbox",
            ]
            async let viaVariable = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json"], input: .text(token), environment: variables,
                in: directory.path)
            async let viaFlag = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--bundle-id", "com.example.other"], input: .text(token),
                environment: variables, in: directory.path)
            let (accepted, rejected) = try await (viaVariable, viaFlag)
            #expect(accepted.exited(0), "\(accepted.summary)")
            #expect(try accepted.jsonLines().first?["ok"] as? Bool == true)
            #expect(rejected.exited(1), "\(rejected.summary)")
            #expect(try rejected.jsonLines().first?["error"] as? String == "wrong_bundle_id")
        }
    }

    @Test func environmentsComeFromTIPLEDGER_ENVIRONMENTUnlessEnvironmentIsGiven() async throws {
        let token = try Fixtures.text("real/sandbox-transaction-04.jws")
        try await TemporaryDirectory.with { directory in
            let sandbox = ["TIPLEDGER_BUNDLE_ID": Self.lokiBundle, "TIPLEDGER_ENVIRONMENT": "Production,Sandbox"]
            async let viaVariable = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--app-apple-id", "1"], input: .text(token),
                environment: sandbox, in: directory.path)
            async let viaFlag = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--app-apple-id", "1", "--environment", "Production"],
                input: .text(token), environment: sandbox, in: directory.path)
            async let flagOverBrokenVariable = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--environment", "Sandbox"], input: .text(token),
                environment: ["TIPLEDGER_BUNDLE_ID": Self.lokiBundle, "TIPLEDGER_ENVIRONMENT": "Staging"],
                in: directory.path)
            async let brokenVariable = TipLedgerBinary.run(
                ["verify", "--dry-run"], input: .text(token),
                environment: ["TIPLEDGER_BUNDLE_ID": Self.lokiBundle, "TIPLEDGER_ENVIRONMENT": "Staging"],
                in: directory.path)
            let (accepted, rejected, flagWins, broken) = try await (
                viaVariable, viaFlag, flagOverBrokenVariable, brokenVariable
            )
            #expect(accepted.exited(0), "\(accepted.summary)")
            #expect(rejected.exited(1), "\(rejected.summary)")
            #expect(try rejected.jsonLines().first?["error"] as? String == "wrong_environment")
            #expect(flagWins.exited(0), "\(flagWins.summary)")
            #expect(broken.exited(64), "\(broken.summary)")
            #expect(broken.errLines.first?.contains("not 'Staging'") == true)
        }
    }

    @Test func appAppleIdComesFromTIPLEDGER_APP_APPLE_IDUnlessAppAppleIdIsGiven() async throws {
        let token = try Fixtures.text("real/production-notification-01.jws")
        try await TemporaryDirectory.with { directory in
            let variables = [
                "TIPLEDGER_BUNDLE_ID": "com.jrjj.keysns", "TIPLEDGER_ENVIRONMENT": "Production",
                "TIPLEDGER_APP_APPLE_ID": "1601830814",
            ]
            async let viaVariable = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json"], input: .text(token), environment: variables,
                in: directory.path)
            async let viaFlag = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--app-apple-id", "42"], input: .text(token),
                environment: variables, in: directory.path)
            let (accepted, rejected) = try await (viaVariable, viaFlag)
            #expect(accepted.exited(0), "\(accepted.summary)")
            let result = try #require(try accepted.jsonLines().first)
            #expect(result["notificationType"] as? String == "CONSUMPTION_REQUEST")
            #expect(rejected.exited(1), "\(rejected.summary)")
            #expect(try rejected.jsonLines().first?["error"] as? String == "wrong_app_apple_id")
        }
    }

    /// `testkit transaction` with `flags`, under `TIPLEDGER_ENVIRONMENT=variable`.
    static func signTip(_ flags: [String], variable: String) async throws -> ProcessOutput {
        let keys = try await SharedInputs.shared.keys()
        return try await TemporaryDirectory.with { directory in
            try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys] + flags,
                environment: ["TIPLEDGER_ENVIRONMENT": variable, "TIPLEDGER_APP_APPLE_ID": "1234567890"],
                in: directory.path)
        }
    }

    /// testkit signs for one environment: the flag's, else the variable's when it names one,
    /// else Sandbox, also when the variable lists it among others (as Real setup sets it).
    @Test(arguments: [
        ([String](), "Production,Sandbox", "Sandbox"), ([], "Production", "Production"), ([], "", "Sandbox"),
        (["--environment", "Xcode"], "Production,Sandbox", "Xcode"),
    ])
    func testkitSignsForTheEnvironmentItIsGiven(_ flags: [String], _ variable: String, _ signed: String)
        async throws
    {
        let tip = try await Self.signTip(flags, variable: variable)
        #expect(tip.exited(0), "\(tip.summary)")
        let payload = try CompactJWS.payload(of: tip.out.trimmingCharacters(in: .newlines))
        #expect(payload["environment"] as? String == signed)
    }

    @Test(arguments: [(["--environment", "Production,Sandbox"], ""), ([], "Production,Xcode")])
    func testkitRefusesSeveralEnvironmentsItCannotChooseFrom(_ flags: [String], _ variable: String) async throws {
        let tip = try await Self.signTip(flags, variable: variable)
        #expect(tip.exited(64), "\(tip.summary)")
        #expect(tip.errLines.first == "error: testkit signs for one environment; give --environment with one name")
    }

    /// `--keys` and `--root` both stand for TIPLEDGER_KEYS, and either flag wins over it: a
    /// root given on the command line narrows trust to itself.
    @Test func trustedKeysComeFromTIPLEDGER_KEYSUnlessKeysOrRootIsGiven() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let other = try await TipLedgerBinary.run(["testkit", "init", "--out", "other-keys"], in: directory.path)
            try #require(other.exited(0), "\(other.summary)")
            let variables = [
                "TIPLEDGER_KEYS": keys, "TIPLEDGER_BUNDLE_ID": SharedInputs.bundleId,
                "TIPLEDGER_ENVIRONMENT": "Sandbox",
            ]
            // testkit signs with the chain TIPLEDGER_KEYS names, too.
            let tip = try await TipLedgerBinary.run(
                ["testkit", "transaction"], environment: variables, in: directory.path)
            try #require(tip.exited(0), "\(tip.summary)")
            async let viaVariable = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json"], input: .text(tip.out), environment: variables,
                in: directory.path)
            async let viaFlag = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--keys", "other-keys"], input: .text(tip.out),
                environment: variables, in: directory.path)
            async let viaRoot = TipLedgerBinary.run(
                ["verify", "--dry-run", "--format", "json", "--root", "other-keys/root.pem"], input: .text(tip.out),
                environment: variables, in: directory.path)
            let (accepted, rejected, rejectedByRoot) = try await (viaVariable, viaFlag, viaRoot)
            #expect(accepted.exited(0), "\(accepted.summary)")
            #expect(rejected.exited(1), "\(rejected.summary)")
            #expect(try rejected.jsonLines().first?["error"] as? String == "untrusted_chain")
            #expect(rejectedByRoot.exited(1), "\(rejectedByRoot.summary)")
            #expect(try rejectedByRoot.jsonLines().first?["error"] as? String == "untrusted_chain")
        }
    }

    @Test func catalogComesFromTIPLEDGER_CATALOGUnlessCatalogIsGiven() async throws {
        let keys = try await SharedInputs.shared.keys()
        let example = "\(Fixtures.projectDirectory)/examples/TipProducts.storekit"
        try await TemporaryDirectory.with { directory in
            let renamed = try String(contentsOfFile: example, encoding: .utf8).replacingOccurrences(
                of: "\"Large Tip\"", with: "\"Big Tip\"")
            try directory.write(renamed, to: "Renamed.storekit")
            try directory.write("not json", to: "Broken.storekit")
            let tip = try await TipLedgerBinary.run(
                [
                    "testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId, "--product",
                    "com.example.tipjar.large",
                ], in: directory.path)
            try #require(tip.exited(0), "\(tip.summary)")
            let record = try await TipLedgerBinary.run(
                ["verify", "--db", "l.sqlite", "--no-finish"] + SharedInputs.acceptingTestkit(keys: keys),
                input: .text(tip.out), in: directory.path)
            try #require(record.exited(0), "\(record.summary)")
            let variables = ["TIPLEDGER_CATALOG": "Renamed.storekit", "TIPLEDGER_DB": "l.sqlite"]
            async let viaVariable = TipLedgerBinary.run(
                ["pending", "--format", "json"], environment: variables, in: directory.path)
            async let viaFlag = TipLedgerBinary.run(
                ["pending", "--format", "json", "--catalog", example], environment: variables, in: directory.path)
            async let brokenFlag = TipLedgerBinary.run(
                ["pending", "--catalog", "Broken.storekit"], environment: variables, in: directory.path)
            let (renamedResult, exampleResult, brokenResult) = try await (viaVariable, viaFlag, brokenFlag)
            #expect(renamedResult.exited(0), "\(renamedResult.summary)")
            #expect(exampleResult.exited(0), "\(exampleResult.summary)")
            func productName(_ result: ProcessOutput) throws -> String? {
                let transactions = try result.json()["transactions"] as? [[String: Any]]
                return transactions?.first?["productName"] as? String
            }
            #expect(try productName(renamedResult) == "Big Tip")
            #expect(try productName(exampleResult) == "Large Tip")
            #expect(brokenResult.exited(64), "\(brokenResult.summary)")
            #expect(brokenResult.errLines.first?.contains("Broken.storekit") == true)
        }
    }

    /// TIPLEDGER_REPLICATED says whether Litestream replicates the ledger; anything but a yes
    /// or a no is a usage error, and the ledger is not touched.
    @Test(arguments: [("1", 0), ("true", 0), ("0", 0), ("no", 0), ("maybe", 64), ("2", 64)])
    func replicationComesFromTIPLEDGER_REPLICATED(value: String, status: Int32) async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                ["migrate", "--db", "l.sqlite"], environment: ["TIPLEDGER_REPLICATED": value], in: directory.path)
            #expect(result.exited(status), "\(result.summary)")
            #expect(directory.exists("l.sqlite") == (status == 0))
            if status != 0 {
                #expect(
                    result.errLines.first == "error: TIPLEDGER_REPLICATED must be 1 (Litestream replicates the "
                        + "ledger) or 0, not '\(value)'")
            }
        }
    }
}
