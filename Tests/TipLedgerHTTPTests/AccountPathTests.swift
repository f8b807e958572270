// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// The account in a restore path is an appAccountToken UUID in its 8-4-4-4-12 form, as the
/// ledger stores them, and nothing a lenient parser would also take.
@Suite struct AccountPathTests {
    /// Foundation's `UUID(uuidString:)` on Linux reads each group with `sscanf`, which takes a
    /// sign, leading whitespace or a `0x` within a group; none of these is an account.
    @Test(arguments: [
        "+e3fb20b-4cdb-47cc-936d-99d65f608138", "7e3fb20b- cdb-47cc-936d-99d65f608138",
        "0x3fb20b-4cdb-47cc-936d-99d65f608138", "7e3fb20b-4cdb-47cc-936d-99d65f6081-8",
        "\t7e3fb20b-4cdb-47cc-936d-99d65f60813",
    ])
    func anAccountWithASignSpaceOrPrefixInAGroupIsABadRequest(_ account: String) throws {
        let harness = try ServiceHarness()

        let response = harness.get("/v1/accounts/\(account)/transactions")

        #expect(response.status == 400)
        #expect(response.bodyText.hasPrefix(#"{"error":"invalid_account","#))
    }
}
