// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerStore

@testable import TipLedgerCLI

@Suite struct ReportRenderingTests {
    /// The commission rate as the user wrote it, without the noise of binary fractions.
    @Test(arguments: [
        ("0.07", "7%"), ("7%", "7%"), ("29%", "29%"), ("0.29", "29%"), ("14.5%", "14.5%"), ("0.145", "14.5%"),
        ("15%", "15%"), ("0", "0%"), ("0.3333", "33.33%"), ("12.25%", "12.25%"),
    ])
    func theCommissionPrintsAsWritten(_ given: String, _ printed: String) throws {
        #expect(ReportRendering.percent(try ReportQuery.commissionRate(given)) == printed)
    }
}
