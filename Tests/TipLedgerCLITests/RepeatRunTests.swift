// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

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
}
