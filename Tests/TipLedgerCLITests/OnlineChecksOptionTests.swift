// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerCLI

/// `--online-checks[=MODE]` and `TIPLEDGER_ONLINE_CHECKS`: off by default, the bare flag strict,
/// the flag winning over the variable (docs/cli.md).
@Suite struct OnlineChecksOptionTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let variable: String?
        let mode: OnlineChecks.Mode?
        var testDescription: String { "\(arguments) TIPLEDGER_ONLINE_CHECKS=\(variable ?? "-")" }
    }

    static let rows: [Row] = [
        Row(arguments: [], variable: nil, mode: nil),
        Row(arguments: ["--online-checks"], variable: nil, mode: .strict),
        Row(arguments: ["--online-checks=strict"], variable: nil, mode: .strict),
        Row(arguments: ["--online-checks=best-effort"], variable: nil, mode: .bestEffort),
        Row(arguments: [], variable: "best-effort", mode: .bestEffort),
        Row(arguments: [], variable: "1", mode: .strict),
        Row(arguments: [], variable: "0", mode: nil),
        Row(arguments: ["--online-checks=off"], variable: "strict", mode: nil),
        Row(arguments: ["--online-checks"], variable: "best-effort", mode: .strict),
    ]

    @Test(arguments: rows)
    func theModeComesFromTheFlagElseTheVariable(_ row: Row) throws {
        var scanner = ArgumentScanner(row.arguments)
        let variables = row.variable.map { ["TIPLEDGER_ONLINE_CHECKS": $0] } ?? [:]
        let globals = try GlobalOptions(scanner: &scanner, environment: variables)
        #expect(globals.onlineChecks == row.mode)
        try scanner.finish()
    }

    @Test func theBareFlagNeverTakesTheNextArgumentAsItsValue() throws {
        var scanner = ArgumentScanner(["--online-checks", "verify"])
        let globals = try GlobalOptions(scanner: &scanner, environment: [:])
        #expect(globals.onlineChecks == .strict)
        #expect(scanner.nextPositional(skippingValuesOf: GlobalOption.valueFlags) == "verify")
    }

    @Test(
        arguments: [(["--online-checks=1"], nil), ([], "sometimes"), (["--online-checks=yes"], "1")]
            as [([String], String?)])
    func anUnknownModeIsAUsageError(_ arguments: [String], _ variable: String?) throws {
        var scanner = ArgumentScanner(arguments)
        let variables = variable.map { ["TIPLEDGER_ONLINE_CHECKS": $0] } ?? [:]
        #expect(throws: CLIError.self) { try GlobalOptions(scanner: &scanner, environment: variables) }
    }

    /// A chain valid now whose certificates name a responder that refuses every connection.
    struct UnreachableResponder {
        let refusing: RefusingPort
        let pki: TestPKI

        init() throws {
            refusing = try RefusingPort()
            let now = Int64(Date().timeIntervalSince1970)
            let url = "http://127.0.0.1:\(refusing.port)/"
            pki = TestChains.mint { options in
                options.notBefore = now - 86_400
                options.notAfter = now + 7 * 86_400
                options.intermediateOCSPURL = url
                options.leafOCSPURL = url
            }
        }

        func token() throws -> String {
            try TestChains.transaction(pki: pki, purchaseDate: Int64(Date().timeIntervalSince1970) * 1000)
        }

        /// `verify` trusting the chain's root (written to `directory`), for the token's app, in
        /// JSON, with `ledger` (`--dry-run`, or `--db FILE`).
        func verifyArguments(in directory: TemporaryDirectory, ledger: [String]) throws -> [String] {
            let root = try directory.write(Data(pki.root.derEncoded), to: "root.cer")
            return ["verify", "--format", "json", "--root", root, "--bundle-id", "com.example.tips"]
                + ["--environment", "Sandbox"] + ledger
        }
    }

    @Test func verifyAsksOnlyWhenToldAndTheModeDecidesWithoutAnAnswer() async throws {
        let responder = try UnreachableResponder()
        let token = try responder.token()
        try await TemporaryDirectory.with { directory in
            let base = try responder.verifyArguments(in: directory, ledger: ["--dry-run"])
            func run(_ extra: [String], variable: String? = nil) async throws -> ProcessOutput {
                try await TipLedgerBinary.run(
                    base + extra, input: .text(token + "\n"),
                    environment: variable.map { ["TIPLEDGER_ONLINE_CHECKS": $0] } ?? [:], in: directory.path)
            }

            let offline = try await run([])
            #expect(offline.exited(0), "off by default: \(offline.summary)")
            let strict = try await run(["--online-checks"])
            #expect(strict.exited(1), "\(strict.summary)")
            #expect(try strict.jsonLines().first?["error"] as? String == "revocation_unavailable")
            #expect(strict.err.contains("hint: no OCSP responder gave a trustworthy answer"), "\(strict.summary)")
            let fromVariable = try await run([], variable: "strict")
            #expect(try fromVariable.jsonLines().first?["error"] as? String == "revocation_unavailable")
            let bestEffort = try await run([], variable: "best-effort")
            #expect(bestEffort.exited(0), "\(bestEffort.summary)")
            let overridden = try await run(["--online-checks=off"], variable: "strict")
            #expect(overridden.exited(0), "\(overridden.summary)")
        }
    }

    /// A token recorded before may have had its certificate revoked since: with online checks,
    /// its repeat is checked again rather than answered from the ledger.
    @Test func aRepeatAlreadyInTheLedgerIsCheckedOnlineAgain() async throws {
        let responder = try UnreachableResponder()
        let token = try responder.token()
        try await TemporaryDirectory.with { directory in
            let base = try responder.verifyArguments(in: directory, ledger: ["--db", "l.sqlite"])
            let recorded = try await TipLedgerBinary.run(base, input: .text(token + "\n"), in: directory.path)
            #expect(recorded.exited(0), "\(recorded.summary)")

            let repeated = try await TipLedgerBinary.run(
                base + ["--online-checks"], input: .text(token + "\n"), in: directory.path)

            #expect(repeated.exited(1), "\(repeated.summary)")
            #expect(try repeated.jsonLines().first?["error"] as? String == "revocation_unavailable")
        }
    }
}
