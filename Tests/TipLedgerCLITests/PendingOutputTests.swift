// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerCLI

/// When verify commits and prints the results waiting for it.
@Suite struct PendingOutputTests {
    let start = ContinuousClock.now

    @Test func resultsAreDueOnceEnoughLinesWait() {
        var pending = PendingOutput(linesPerCommit: 8)
        #expect(!pending.isDue(at: start))

        pending.added(lines: 5, at: start)
        #expect(!pending.isDue(at: start))
        pending.added(lines: 3, at: start)
        #expect(pending.isDue(at: start))

        pending.bytes = Array("line 1: ok\n".utf8)
        #expect(pending.take() == Array("line 1: ok\n".utf8))
        #expect(pending.bytes.isEmpty)
        #expect(!pending.isDue(at: start.advanced(by: .seconds(60))), "nothing waits after take()")
    }

    /// The wait runs from the first line added, not the last.
    @Test func resultsAreDueOnceTheFirstOfThemWaitedLongEnough() {
        var pending = PendingOutput(linesPerCommit: 8192)
        let wait = PendingOutput.longestWait
        pending.added(lines: 1, at: start)
        pending.added(lines: 1, at: start.advanced(by: wait * 0.9))

        #expect(!pending.isDue(at: start.advanced(by: wait * 0.99)))
        #expect(pending.isDue(at: start.advanced(by: wait)))
    }
}
