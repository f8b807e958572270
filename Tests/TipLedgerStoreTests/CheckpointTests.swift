// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// The ledger copies its write-ahead log into the file only once the log has grown by the
/// checkpoint threshold, so a page several commits wrote is copied once.
@Suite struct CheckpointTests {
    private func record(_ ids: ClosedRange<Int>, into ledger: Ledger) throws {
        for id in ids {
            let token = try TestChains.transaction(id: "\(2_000_000_000_300_000 + id)")
            _ = try ledger.record(try TestChains.verified(token), finish: true)
        }
    }

    /// A new ledger in `directory` that checkpoints every `checkpointFrames` frames.
    private func ledger(in directory: TemporaryDirectory, checkpointFrames: Int) throws -> (Ledger, Checkpointer) {
        let ledger = try Ledger.open(
            path: directory.file("ledger.sqlite"),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)), busyTimeout: .seconds(5),
            checkpointFrames: checkpointFrames)
        return (ledger, try #require(ledger.checkpointer))
    }

    @Test func theLogIsCopiedOnlyAfterItGrewByTheThreshold() throws {
        let directory = try TemporaryDirectory()
        let (ledger, checkpointer) = try ledger(in: directory, checkpointFrames: 200)
        // The schema and one recorded transaction stay well under 200 frames.
        try record(1...1, into: ledger)
        checkpointer.waitUntilIdle()
        #expect(checkpointer.checkpointsRun.load(ordering: .relaxed) == 0)
        // Each recorded transaction commits several pages.
        try record(2...80, into: ledger)
        checkpointer.waitUntilIdle()
        let checkpoints = checkpointer.checkpointsRun.load(ordering: .relaxed)
        #expect(checkpoints >= 1)
        // Far fewer checkpoints than commits.
        #expect(checkpoints < 20)
        #expect(try ledger.integrityCheck() == "ok")
    }

    @Test func aWriterAboutToFinishCanHaveTheLogCopiedAtOnce() throws {
        let directory = try TemporaryDirectory()
        let (ledger, checkpointer) = try ledger(in: directory, checkpointFrames: 100_000)
        try record(1...20, into: ledger)
        checkpointer.waitUntilIdle()
        #expect(checkpointer.checkpointsRun.load(ordering: .relaxed) == 0)
        ledger.checkpointSoon()
        checkpointer.waitUntilIdle()
        #expect(checkpointer.checkpointsRun.load(ordering: .relaxed) == 1)
        // Everything committed is in the file now: a reader that ignores the log sees all 20.
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: directory.file("ledger.sqlite"), toPath: copy)
        let rows = try Ledger.open(path: copy).withReader { database in
            try database.queryOne("SELECT count(*) FROM transactions") { $0.int64(0) }
        }
        #expect(rows == 20)
    }
}
