// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `restore`'s text form: totals that count more than the tips listed say so, and a currency
/// of refunded or revoked tips only, none listed, gets no line of zeros.
@Suite struct RestoreTextTests {
    static let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    @Test func totalsSayWhenTheyCountTipsNotListed() async throws {
        try await TemporaryDirectory.with { directory in
            let tipledger = EndToEndTests.Runner(directory: directory)
            try #require(try await tipledger(["testkit", "init", "--out", "keys"]).exited(0))
            let settings = ["--keys", "keys", "--environment", "Sandbox", "--bundle-id", SharedInputs.bundleId]
            // Bought an hour ago, so the notifications signed now are newer.
            let bought = EndToEndTests.iso(Date() - 3600)
            var tips: [SignedTip] = []
            for (seed, storefront) in [("1", "USA"), ("2", "USA"), ("3", "DEU")] {
                let signing = try await tipledger(
                    [
                        "testkit", "transaction", "--account", Self.account, "--seed", seed, "--storefront", storefront,
                        "--purchase-date", bought,
                    ] + settings)
                try #require(signing.exited(0), "\(signing.summary)")
                tips.append(try SignedTip(signing.outLines[0]))
            }
            let ledger = ["--db", "l.sqlite"] + settings
            let recording = try await tipledger(
                ["verify"] + ledger, input: .text(tips.map(\.token).joined(separator: "\n") + "\n"))
            try #require(recording.exited(0), "\(recording.summary)")
            // Nothing left out, nothing said about it.
            let unrefunded = try await tipledger(["restore", "--account", Self.account] + ledger)
            #expect(unrefunded.outLines.first?.hasSuffix(": 3 tips") == true, "\(unrefunded.out)")
            // Half of the first dollar tip refunded, the euro tip revoked.
            let halfRefund = try await tipledger.notification(
                "REFUND", about: tips[0], at: Date(), ["--revocation-percentage", "50"])
            let revoke = try await tipledger.notification("REVOKE", about: tips[2], at: Date())
            let applying = try await tipledger(["verify"] + ledger, input: .text(halfRefund + "\n" + revoke + "\n"))
            try #require(applying.exited(0), "\(applying.summary)")

            let listed = try await tipledger(["restore", "--account", Self.account] + ledger)
            #expect(listed.exited(0), "\(listed.summary)")
            #expect(
                listed.outLines.first?.hasSuffix(": 1 tip (2 refunded or revoked left out; --all lists them)")
                    == true)
            #expect(listed.outLines.contains { $0.contains(tips[1].transactionId) })
            #expect(!listed.outLines.contains { $0.contains("EUR") }, "\(listed.out)")
            #expect(
                listed.outLines.last == "  (the totals include what partly refunded tips still count; --all lists them)"
            )

            let all = try await tipledger(["restore", "--account", Self.account, "--all"] + ledger)
            #expect(all.exited(0), "\(all.summary)")
            #expect(all.outLines.first?.hasSuffix(": 3 tips") == true)
            #expect(all.outLines.contains { $0.hasSuffix("0.00  Sandbox      EUR") }, "\(all.out)")
            #expect(!all.out.contains("the totals include"))
        }
    }

    /// An account whose only tip was partly refunded lists none, without a table of no rows,
    /// and its total says what the refund left.
    @Test func anAccountOfOnlyAPartlyRefundedTipListsNoneAndItsTotal() async throws {
        try await TemporaryDirectory.with { directory in
            let tipledger = EndToEndTests.Runner(directory: directory)
            try #require(try await tipledger(["testkit", "init", "--out", "keys"]).exited(0))
            let settings = ["--keys", "keys", "--environment", "Sandbox", "--bundle-id", SharedInputs.bundleId]
            let signing = try await tipledger(
                [
                    "testkit", "transaction", "--account", Self.account, "--price", "4.99", "--purchase-date",
                    EndToEndTests.iso(Date() - 3600),
                ] + settings)
            try #require(signing.exited(0), "\(signing.summary)")
            let tip = try SignedTip(signing.outLines[0])
            let refund = try await tipledger.notification(
                "REFUND", about: tip, at: Date(), ["--revocation-percentage", "50"])
            let ledger = ["--db", "l.sqlite"] + settings
            let recording = try await tipledger(["verify"] + ledger, input: .text(tip.token + "\n" + refund + "\n"))
            try #require(recording.exited(0), "\(recording.summary)")

            let restore = try await tipledger(["restore", "--account", Self.account] + ledger)

            #expect(restore.exited(0), "\(restore.summary)")
            #expect(
                restore.outLines == [
                    "account \(Self.account): no tips listed (1 refunded or revoked left out; --all lists them)",
                    "  net total  environment  currency",
                    "      2.495  Sandbox      USD",
                    "  (the totals include what partly refunded tips still count; --all lists them)",
                ])
        }
    }
}
