// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

@Suite struct CLISmokeTests {
    @Test func fixturesAreReachable() throws {
        #expect(try Fixtures.text("real/sandbox-transaction-04.jws").hasPrefix("eyJ"))
    }
}
