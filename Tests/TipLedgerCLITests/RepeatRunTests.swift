// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerCore

/// Running `verify` again on input the ledger already holds answers from the ledger without the
/// cryptography, and says exactly what verifying again would.
@Suite struct RepeatRunTests {
    /// The testkit's settings with a second, unused bundle id accepted: another verifier
    /// fingerprint, so no repeat is answered from the ledger.
    static func acceptingAnotherBundle(keys: String) -> [String] {
        ["--keys", keys, "--environment", "Sandbox", "--bundle-id", "\(SharedInputs.bundleId),com.example.unused"]
    }

    @Test func aRepeatedRunPrintsWhatAFullVerificationPrints() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let accept = SharedInputs.acceptingTestkit(keys: keys)
            let first = try await TipLedgerBinary.run(
                ["verify", "--format", "json", "--db", "a.sqlite"] + accept, input: .file(tips.firstHalfPath),
                in: directory.path)
            #expect(first.exited(0), "\(first.summary)")
            try FileManager.default.copyItem(atPath: directory.file("a.sqlite"), toPath: directory.file("b.sqlite"))
            // Same configuration: exact repeats are answered from the ledger.
            let repeated = try await TipLedgerBinary.run(
                ["verify", "--format", "json", "--db", "a.sqlite"] + accept, input: .file(tips.firstHalfPath),
                in: directory.path)
            // A second accepted bundle id changes the verifier's fingerprint, so every line is
            // verified and recorded again the long way.
            let verifiedAgain = try await TipLedgerBinary.run(
                ["verify", "--format", "json", "--db", "b.sqlite"] + Self.acceptingAnotherBundle(keys: keys),
                input: .file(tips.firstHalfPath), in: directory.path)
            #expect(repeated.exited(0) && verifiedAgain.exited(0))
            let lines = try repeated.jsonLines()
            #expect(lines.count == tips.lines.count / 2)
            #expect(lines.allSatisfy { $0["outcome"] as? String == "duplicate" })
            #expect(repeated.out == verifiedAgain.out)
        }
    }

    /// A stored transaction wrapped as a webhook body is verified as one, as on a new ledger:
    /// a body can carry only a notification, whatever the ledger holds under its token.
    @Test func aTransactionWrappedAsAWebhookBodyIsRejectedAsOnANewLedger() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let accept = SharedInputs.acceptingTestkit(keys: keys)
            let recorded = try await TipLedgerBinary.run(
                ["verify", "--db", "a.sqlite"] + accept, input: .text(tips.lines[0] + "\n"), in: directory.path)
            try #require(recorded.exited(0), "\(recorded.summary)")
            let wrapped = #"{"signedPayload":""# + tips.lines[0] + #""}"# + "\n"
            var answers: [String] = []
            for ledger in ["a.sqlite", "new.sqlite"] {
                let result = try await TipLedgerBinary.run(
                    ["verify", "--format", "json", "--db", ledger] + accept, input: .text(wrapped), in: directory.path)
                #expect(result.exited(1), "\(ledger): \(result.summary)")
                answers.append(result.out)
            }
            #expect(answers[0] == answers[1])
            #expect(
                try #require(try JSONSerialization.jsonObject(with: Data(answers[0].utf8)) as? [String: Any])["ok"]
                    as? Bool == false)
        }
    }

    /// A repeat answered from the ledger reports its transaction as the lines before it left
    /// it, when one of them changed it: in the same batch, in the batch before, which was
    /// being recorded while the repeats were looked up, or in any earlier batch not committed
    /// by then.
    @Test func aRepeatAfterARefundInTheSameRunReportsTheRefund() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let accept = SharedInputs.acceptingTestkit(keys: keys)
            func refund(_ tip: String) async throws -> String {
                let signing = try await TipLedgerBinary.run(
                    ["testkit", "notification", "--keys", keys, "--type", "REFUND", "--transaction", "-"],
                    input: .text(tip + "\n"), in: directory.path)
                try #require(signing.exited(0), "\(signing.summary)")
                return signing.outLines[0]
            }
            let recording = try await TipLedgerBinary.run(
                ["verify", "--db", "a.sqlite"] + accept,
                input: .text(tips.lines[..<200].joined(separator: "\n") + "\n"), in: directory.path)
            try #require(recording.exited(0), "\(recording.summary)")
            try FileManager.default.copyItem(atPath: directory.file("a.sqlite"), toPath: directory.file("b.sqlite"))
            // A refund and its tip again on lines 1 and 2 (one batch), and on lines 128 and 129:
            // the last line of the first batch and the first of the second. A third refund on
            // line 3, and its tip again on line 385, the first of the third and last batch: the
            // run's 531 lines are committed together, at the end. A fourth refund on line 384,
            // the last of the second batch, and its tip again on line 516, in the second piece
            // of the last batch (looked up while the second batch was still to be recorded).
            var lines = [try await refund(tips.lines[4]), tips.lines[4], try await refund(tips.lines[12])]
            lines += tips.lines[20..<144]
            lines += [try await refund(tips.lines[8]), tips.lines[8]]
            lines += tips.lines[150..<404]
            lines += [try await refund(tips.lines[16]), tips.lines[12]]
            lines += tips.lines[410..<540]
            lines += [tips.lines[16]]
            lines += tips.lines[545..<560]
            let input = Subprocess.Input.text(lines.joined(separator: "\n") + "\n")

            let repeated = try await TipLedgerBinary.run(
                ["verify", "--db", "a.sqlite"] + accept, input: input, in: directory.path)
            // Another fingerprint: every line verified and recorded the long way.
            let verifiedAgain = try await TipLedgerBinary.run(
                ["verify", "--db", "b.sqlite"] + Self.acceptingAnotherBundle(keys: keys),
                input: input, in: directory.path)

            #expect(repeated.exited(0) && verifiedAgain.exited(0), "\(repeated.summary)")
            #expect(repeated.outLines[1].hasSuffix("duplicate (refunded)"), "\(repeated.outLines[1])")
            #expect(repeated.outLines[128].hasPrefix("line 129: ok transaction"))
            #expect(repeated.outLines[128].hasSuffix("duplicate (refunded)"), "\(repeated.outLines[128])")
            #expect(repeated.outLines[384].hasPrefix("line 385: ok transaction"))
            #expect(repeated.outLines[384].hasSuffix("duplicate (refunded)"), "\(repeated.outLines[384])")
            #expect(repeated.outLines[515].hasPrefix("line 516: ok transaction"))
            #expect(repeated.outLines[515].hasSuffix("duplicate (refunded)"), "\(repeated.outLines[515])")
            #expect(repeated.out == verifiedAgain.out)
        }
    }

    @Test func aRepeatedRunWithAnotherTrustStoreVerifiesAgainAndRejects() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let accept = SharedInputs.acceptingTestkit(keys: keys)
            let first = try await TipLedgerBinary.run(
                ["verify", "--db", "a.sqlite"] + accept, input: .file(tips.firstHalfPath), in: directory.path)
            #expect(first.exited(0), "\(first.summary)")
            // The same ledger, but trusting only Apple's root: the stored tokens no longer verify,
            // and their being in the ledger must not make them pass.
            let appleOnly = accept.filter { $0 != "--keys" && $0 != keys }
            let repeated = try await TipLedgerBinary.run(
                ["verify", "--format", "json", "--db", "a.sqlite"] + appleOnly, input: .file(tips.firstHalfPath),
                in: directory.path)
            #expect(repeated.exited(1))
            let lines = try repeated.jsonLines()
            #expect(lines.count == tips.lines.count / 2)
            #expect(lines.allSatisfy { $0["error"] as? String == "untrusted_chain" })
        }
    }

    /// A token the ledger holds as accepted by earlier checks, which a check added since
    /// rejects (a currency of the wrong shape), is verified again rather than answered from the
    /// ledger, and rejected.
    @Test func aRepeatAcceptedByEarlierChecksIsVerifiedAgainAndRejected() async throws {
        let id = "2000000000000777"
        let sound = try TestChains.transaction(id: id, currency: "USD")
        let lowercase = try TestChains.transaction(id: id, currency: "usd")
        try await TemporaryDirectory.with { directory in
            let root = try directory.write(Data(TestChains.standard.root.derEncoded), to: "root.cer")
            let settings = [
                "--db", "l.sqlite", "--root", root, "--bundle-id", "com.example.tips", "--environment", "Sandbox",
            ]
            let recording = try await TipLedgerBinary.run(
                ["verify"] + settings, input: .text(sound + "\n"), in: directory.path)
            try #require(recording.exited(0), "\(recording.summary)")
            // The ledger as checks of version 1, which took any currency, left it: the evidence
            // is the lowercase token under their fingerprint, the transaction its currency.
            let trust = try TrustStore(roots: [TestChains.standard.root])
            let policy = VerificationPolicy(bundleIds: ["com.example.tips"], environments: [.sandbox])
            let stored = try await SQLiteShell.value(
                "l.sqlite", "SELECT hex(verifier_fingerprint) FROM evidence", in: directory.path)
            try #require(
                stored.lowercased()
                    == hex(Verifier.fingerprint(trustStore: trust, policy: policy, checks: Verifier.checksVersion)))
            let earlier = Verifier.fingerprint(trustStore: trust, policy: policy, checks: 1)
            let body = try #require(lowercase.split(separator: ".", maxSplits: 1).last)
            _ = try await SQLiteShell.rows(
                "l.sqlite",
                """
                UPDATE evidence SET sha256 = X'\(hex(SHA256.hash(lowercase.utf8)))', body = '\(body)',
                    verifier_fingerprint = X'\(hex(earlier))';
                UPDATE transactions SET currency = 'usd';
                """, in: directory.path)

            let repeated = try await TipLedgerBinary.run(
                ["verify", "--format", "json"] + settings,
                input: .text(lowercase + "\n" + (try TestChains.transaction(id: "2000000000000778")) + "\n"),
                in: directory.path)

            #expect(repeated.exited(1), "\(repeated.summary)")
            let lines = try repeated.jsonLines()
            try #require(lines.count == 2, "\(repeated.summary)")
            #expect(lines[0]["error"] as? String == "invalid_payload", "\(lines[0])")
            #expect((lines[0]["message"] as? String)?.contains("currency") == true, "\(lines[0])")
            #expect(lines[1]["ok"] as? Bool == true, "\(lines[1])")
        }
    }
}
