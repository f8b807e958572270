// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerCLI

/// verify's closing line in text.
@Suite struct TallyTests {
    @Test func theSummaryCountsLinesInWords() {
        var tally = Tally()
        #expect(tally.summary == "0 lines: 0 accepted, 0 rejected")
        tally.count(accepted: true)
        #expect(tally.summary == "1 line: 1 accepted, 0 rejected")
        tally.count(accepted: false)
        #expect(tally.summary == "2 lines: 1 accepted, 1 rejected")
    }
}
