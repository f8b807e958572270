// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// What the ledger knows of its own writes (`LedgerHealth`), and the probe that finds out
/// whether they commit again.
@Suite struct LedgerHealthTests {
    /// SQLite's error of a write the disk failed, as the ledger would meet it.
    static let ioError = StoreError(code: 10 | 3 << 8, message: "disk I/O error", sql: "COMMIT")

    /// Every table's row count and the schema version: what any write would change.
    static func contents(of ledger: Ledger) throws -> [String] {
        let tables = ["jws_headers", "evidence", "transactions", "notifications", "consumption_requests", "events"]
        return try tables.map { "\($0) \(try ledger.integer("SELECT count(*) FROM \($0)"))" }
            + ["user_version \(try ledger.integer("PRAGMA user_version"))"]
    }

    /// The probe commits for real (it adds a frame to the log, synced as any commit is), and
    /// changes nothing the ledger holds.
    @Test func aProbeCommitsAndChangesNothingTheLedgerHolds() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction())
        let contents = try Self.contents(of: store.ledger)
        let frames = try store.ledger.withDatabase { $0.logFrames }
        store.ledger.health.failed(Self.ioError)

        store.ledger.probeWriteIfDue(every: .zero)

        #expect(store.ledger.health.failure == nil)
        #expect(try store.ledger.withDatabase { $0.logFrames } == frames + 1)
        #expect(try Self.contents(of: store.ledger) == contents)
        #expect(try store.ledger.integrityCheck() == "ok")
    }

    /// A probe waits `interval` after the last attempt to commit, a failed write included.
    @Test func aProbeWaitsItsInterval() throws {
        let store = try TestLedger()
        store.ledger.health.failed(Self.ioError)

        store.ledger.probeWriteIfDue(every: .seconds(3600))

        #expect(store.ledger.health.failure?.fault == .ioError)
    }

    /// No probe vouches for damage or an unforeseen failure; a write that records something
    /// clears the latter, and nothing clears damage.
    @Test(arguments: [(Int32(11), LedgerFault.damaged), (1, .other)])
    func onlyAWriteClearsAFailureNotOfTheFileSystem(code: Int32, fault: LedgerFault) throws {
        let store = try TestLedger()
        store.ledger.health.failed(StoreError(code: code, message: "failed", sql: "INSERT"))

        store.ledger.probeWriteIfDue(every: .zero)
        let afterAProbe = store.ledger.health.failure?.fault
        try store.record(try TestChains.transaction())

        #expect(afterAProbe == fault)
        #expect(store.ledger.health.failure?.fault == (fault == .damaged ? .damaged : nil))
    }

    /// A busy lock is counted, and leaves the ledger healthy; failures are counted by fault.
    @Test func failuresAreCountedByFaultAndABusyLockLeavesTheLedgerHealthy() throws {
        let store = try TestLedger()
        store.ledger.health.failed(StoreError(code: 5, message: "database is locked", sql: "BEGIN IMMEDIATE"))
        let afterBusy = store.ledger.health.failure
        store.ledger.health.failed(Self.ioError)
        store.ledger.health.failed(Self.ioError)

        #expect(afterBusy == nil)
        #expect(store.ledger.health.failedWrites == [.busy: 1, .ioError: 2])
    }

    /// A write that commits nothing new (an exact repeat) says nothing about the disk.
    @Test func aRepeatThatWritesNothingLeavesAFailureInForce() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction()
        try store.record(token)
        store.ledger.health.failed(Self.ioError)

        #expect(try store.record(token).outcome == .duplicate)

        #expect(store.ledger.health.failure?.fault == .ioError)
    }
}
