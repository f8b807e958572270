// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerCLI

/// When verify commits and prints the results waiting for it.
@Suite struct PendingOutputTests {
    @Test func resultsAreDueOnceEnoughLinesWait() {
        var pending = PendingOutput(linesPerCommit: 8)
        let start = ContinuousClock.now
        #expect(!pending.isDue(at: start))

        pending.added(lines: 5)
        #expect(!pending.isDue(at: start))
        pending.added(lines: 3)
        #expect(pending.isDue(at: start))

        pending.bytes = Array("line 1: ok\n".utf8)
        #expect(pending.take() == Array("line 1: ok\n".utf8))
        #expect(pending.bytes.isEmpty)
        #expect(!pending.isDue(at: start.advanced(by: .seconds(60))), "nothing waits after take()")
    }

    @Test func resultsAreDueOnceTheFirstOfThemWaitedASecond() {
        var pending = PendingOutput(linesPerCommit: 8192)
        let start = ContinuousClock.now
        pending.added(lines: 1)
        #expect(!pending.isDue(at: start))

        #expect(pending.isDue(at: start.advanced(by: PendingOutput.longestWait + .milliseconds(1))))
        // The wait runs from the first line added, not the last.
        pending.added(lines: 1)
        #expect(pending.isDue(at: start.advanced(by: PendingOutput.longestWait + .milliseconds(1))))
    }
}
