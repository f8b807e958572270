// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerStore

/// An account is an `appAccountToken`, a UUID: `restore --account`, the restore route and
/// `testkit --account` take one, and the access log hides one wherever it stands.
@Suite struct AccountTokenTests {
    @Test(arguments: ["7e3fb20b-4cdb-47cc-936d-99d65f608138", "7E3FB20B-4CDB-47CC-936D-99D65F608138"])
    func aUUIDInEitherCaseIsAnAccount(_ text: String) {
        #expect(Ledger.isAccountToken(text))
    }

    @Test(arguments: [
        "", "7e3fb20b4cdb47cc936d99d65f608138", "7e3fb20b-4cdb-47cc-936d-99d65f60813",
        "{7e3fb20b-4cdb-47cc-936d-99d65f608138}", "7e3fb20b-4cdb-47cc-936d-99d65f60813g", "someone@example.com",
        // Shapes a scanf-based parser takes: a sign, a hex prefix, leading blanks.
        "+e3fb20b-4cdb-47cc-936d-99d65f608138", "0x3fb20b-4cdb-47cc-936d-99d65f608138",
        " 7e3fb20b-4cdb-47cc-936d-99d65f60813",
    ])
    func anythingElseIsNot(_ text: String) {
        #expect(!Ledger.isAccountToken(text))
    }
}
