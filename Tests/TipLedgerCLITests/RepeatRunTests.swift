// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// Running `verify` again on input the ledger already holds answers from the ledger without the
/// cryptography, and says exactly what verifying again would.
@Suite struct RepeatRunTests {
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
                ["verify", "--format", "json", "--db", "b.sqlite"] + accept
                    + ["--bundle-id", "\(SharedInputs.bundleId),com.example.unused"],
                input: .file(tips.firstHalfPath), in: directory.path)
            #expect(repeated.exited(0) && verifiedAgain.exited(0))
            let lines = try repeated.jsonLines()
            #expect(lines.count == tips.lines.count / 2)
            #expect(lines.allSatisfy { $0["outcome"] as? String == "duplicate" })
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
