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

    /// A new ledger in `directory` that checkpoints every `checkpointFrames` frames and restarts
    /// a log longer than `restartFrames`.
    private func ledger(
        in directory: TemporaryDirectory, checkpointFrames: Int,
        restartFrames: Int64 = Checkpointer.frames(pageSize: NewLedgerPages.forBatches.bytes).restart,
        busyTimeout: Duration = .seconds(5)
    ) throws -> (Ledger, Checkpointer) {
        let ledger = try Ledger.open(
            path: directory.file("ledger.sqlite"),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)), busyTimeout: busyTimeout,
            checkpointFrames: checkpointFrames, restartFrames: restartFrames)
        return (ledger, try #require(ledger.checkpointer))
    }

    /// A ledger that recorded `count` transactions and found its log's restart due, and a
    /// reader in the middle of a read transaction on that log; with the count the reader read.
    private func restartDueWithAReader(
        in directory: TemporaryDirectory, count: Int, restartFrames: Int64, busyTimeout: Duration = .seconds(5)
    ) throws -> (ledger: Ledger, checkpointer: Checkpointer, reader: Database, readCount: Int64?) {
        let (ledger, checkpointer) = try ledger(
            in: directory, checkpointFrames: 100_000, restartFrames: restartFrames, busyTimeout: busyTimeout)
        try record(1...count, into: ledger)
        ledger.checkpointSoon()
        checkpointer.waitUntilIdle()
        #expect(checkpointer.isRestartDue)
        let reader = try Database(path: ledger.path)
        try reader.execute("BEGIN")
        let readCount = try reader.queryOne("SELECT count(*) FROM transactions") { $0.int64(0) }
        return (ledger, checkpointer, reader, readCount)
    }

    private func logFrames(of ledger: Ledger) throws -> Int {
        try ledger.withDatabase { $0.logFrames }
    }

    /// A bound on the log makes a checkpoint due every half of it at most, and a restart once
    /// more than half of it was copied, whatever the ledger's size; without one, the defaults.
    @Test(arguments: [nil, 4 << 20, 1 << 30])
    func aLogBoundHalvesIntoTheCheckpointAndRestartThresholds(_ bound: Int?) throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger.open(path: directory.file("ledger.sqlite"), logBound: bound)
        let checkpointer = try #require(ledger.checkpointer)
        let pageSize = Int(try ledger.integer("PRAGMA page_size"))
        let defaults = Checkpointer.frames(pageSize: pageSize)
        let half = bound.map { $0 / 2 / pageSize }
        #expect(checkpointer.checkpointFrames == min(defaults.checkpoint, half ?? .max))
        #expect(checkpointer.restartFrames == min(defaults.restart, half.map(Int64.init) ?? .max))
        if bound == 4 << 20 { #expect(checkpointer.checkpointFrames == 128 && checkpointer.restartFrames == 128) }
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

    /// The threshold follows the ledger's size: a small ledger committing one transaction at a
    /// time (as `serve` does) has its log copied after some 8 MiB of frames, not 256 MiB, so the log
    /// does not grow to hundreds of megabytes beside a ledger of a few hundred kilobytes.
    @Test func aSmallLedgersLogIsCopiedSoon() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger.open(
            path: directory.file("ledger.sqlite"),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
        let checkpointer = try #require(ledger.checkpointer)
        try record(1...150, into: ledger)
        checkpointer.waitUntilIdle()
        #expect(checkpointer.checkpointsRun.load(ordering: .relaxed) >= 1)
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

    /// Beside Litestream, which checkpoints the log itself once it has read it, the ledger
    /// copies nothing of its log into the file: not by a checkpointer of its own, nor by SQLite's
    /// automatic checkpoint after 1,000 frames. Without replication the same writes reach the file.
    @Test(arguments: [false, true])
    func aReplicatedLedgerLeavesItsLogToTheReplicator(replicated: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ledger.sqlite")
        let ledger = try Ledger.open(
            path: path, clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)),
            busyTimeout: .seconds(5), checkpointFrames: 100, restartFrames: 200, replicated: replicated)
        #expect((ledger.checkpointer == nil) == replicated)
        // Well over 1,000 frames of log.
        try record(1...300, into: ledger)
        ledger.checkpointSoon()
        ledger.checkpointer?.waitUntilIdle()
        let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        if replicated { #expect(log > 1000 * NewLedgerPages.forBatches.bytes) }

        // The file alone, without its log: what checkpoints copied into it.
        let copy = directory.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let tables = try Database(path: copy).queryOne(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'transactions'"
        ) { $0.int64(0) }
        #expect(tables == (replicated ? 0 : 1))
        #expect(try ledger.integrityCheck() == "ok")
    }

    @Test func theWriterRestartsALongLogOnceItWasCopied() throws {
        let directory = try TemporaryDirectory()
        let (ledger, checkpointer) = try ledger(in: directory, checkpointFrames: 100_000, restartFrames: 20)
        try record(1...20, into: ledger)
        ledger.checkpointSoon()
        checkpointer.waitUntilIdle()
        #expect(checkpointer.isRestartDue)
        let before = try logFrames(of: ledger)

        // The restart follows the next commit; the commit after it starts the log afresh.
        try record(21...21, into: ledger)
        #expect(!checkpointer.isRestartDue)
        try record(22...22, into: ledger)

        #expect(try logFrames(of: ledger) < before)
    }

    /// The writer holds the write lock while it restarts the log, so it waits only briefly for a
    /// reader still on the log, and tries again after a later commit.
    @Test func aRestartThatAReaderHoldsUpIsTriedAgainLater() throws {
        let directory = try TemporaryDirectory()
        // A reader in the middle of a read transaction: the next commit leaves it behind.
        let (ledger, checkpointer, reader, readCount) = try restartDueWithAReader(
            in: directory, count: 20, restartFrames: 20, busyTimeout: .seconds(2))
        #expect(readCount == 20)
        try record(21...21, into: ledger)
        #expect(checkpointer.isRestartDue)

        try reader.execute("COMMIT")
        try record(22...22, into: ledger)
        #expect(!checkpointer.isRestartDue)
        let beforeRestart = try logFrames(of: ledger)
        try record(23...23, into: ledger)

        // The commit after the restart went to the start of the log.
        #expect(try logFrames(of: ledger) < beforeRestart)
        #expect(try ledger.integrityCheck() == "ok")
    }

    /// A reader that stays on the log costs the writer a short wait every quarter of
    /// `restartFrames` of log, not at every commit.
    @Test func aRestartHeldUpIsTriedAgainOnlyAfterTheLogGrew() throws {
        let directory = try TemporaryDirectory()
        let (ledger, checkpointer, reader, _) = try restartDueWithAReader(
            in: directory, count: 30, restartFrames: 100)

        try record(31...31, into: ledger)
        #expect(checkpointer.restartsTried.load(ordering: .relaxed) == 1)
        let heldAt = try logFrames(of: ledger)
        // Fewer than 25 frames (a quarter of 100) later: not tried again.
        var next = 32
        while try logFrames(of: ledger) + 8 < heldAt + 25 {
            try record(next...next, into: ledger)
            next += 1
        }
        #expect(checkpointer.restartsTried.load(ordering: .relaxed) == 1)
        #expect(checkpointer.isRestartDue)
        // Past it: tried again, and done once the reader has gone.
        try reader.execute("COMMIT")
        while checkpointer.isRestartDue && next < 60 {
            try record(next...next, into: ledger)
            next += 1
        }
        #expect(!checkpointer.isRestartDue)
        #expect(checkpointer.restartsTried.load(ordering: .relaxed) == 2)
    }

    /// SQLite's own setting, on the writer (after a restart, which waits less) and on readers.
    @Test func everyConnectionWaitsTheBusyTimeoutGivenToTheMillisecond() throws {
        let directory = try TemporaryDirectory()
        let (ledger, checkpointer) = try ledger(
            in: directory, checkpointFrames: 100_000, restartFrames: 20, busyTimeout: .milliseconds(1500))
        try record(1...20, into: ledger)
        ledger.checkpointSoon()
        checkpointer.waitUntilIdle()
        try record(21...21, into: ledger)
        #expect(checkpointer.restartsTried.load(ordering: .relaxed) == 1)

        #expect(try ledger.withDatabase { try $0.pragmaInteger("busy_timeout") } == 1500)
        #expect(try ledger.withReader { try $0.pragmaInteger("busy_timeout") } == 1500)
    }
}
