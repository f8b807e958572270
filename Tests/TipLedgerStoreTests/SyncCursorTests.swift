// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// The progress of walks through Apple's histories (`sync_cursors`): saved with a page's
/// records in one transaction, read back as saved.
@Suite struct SyncCursorTests {
    static func sweep(pages: Int, token: String?) -> SyncCursor {
        var cursor = SyncCursor(environment: .sandbox, walk: .notificationHistory)
        cursor.running = true
        cursor.windowStart = AppleDate(wholeMilliseconds: TestLedger.reference - 86_400_000)
        cursor.windowEnd = AppleDate(wholeMilliseconds: TestLedger.reference)
        cursor.cursor = token
        cursor.pages = pages
        return cursor
    }

    @Test func aWalkNeverBegunHasNoProgress() throws {
        let store = try TestLedger()
        let cursor = try store.ledger.syncCursor(.production, .transactionHistory, scope: "1")
        #expect(cursor == SyncCursor(environment: .production, walk: .transactionHistory, scope: "1"))
        #expect(!cursor.running && cursor.cursor == nil && cursor.pages == 0 && cursor.sweptUntil == nil)
    }

    @Test func aPagesRecordsAndItsCursorAreReadBackAsSaved() throws {
        let store = try TestLedger()
        let tip = try TestChains.verified(try TestChains.transaction(id: "2000000000000701"))
        let first = Self.sweep(pages: 1, token: "token-2")
        let results = try store.ledger.record([tip], finish: false, saving: first)
        #expect(try results.map { try $0.get().outcome } == [.recorded])
        #expect(try store.ledger.syncCursor(.sandbox, .notificationHistory) == first)

        var done = Self.sweep(pages: 2, token: nil)
        done.running = false
        done.sweptUntil = done.windowEnd
        done.completed = AppleDate(wholeMilliseconds: TestLedger.reference + 5)
        try store.ledger.save(done)
        #expect(try store.ledger.syncCursor(.sandbox, .notificationHistory) == done)
        #expect(try store.ledger.syncCursor(.production, .notificationHistory).pages == 0, "kept per environment")
        #expect(try store.count("sync_cursors") == 1)
    }

    /// Two sweeps at once (`serve`'s and `sync`'s) each save what they began from: the one that
    /// ends last must not move the swept time back, nor clear it.
    @Test func theSweptTimeOnlyMovesForward() throws {
        let store = try TestLedger()
        var later = Self.sweep(pages: 3, token: nil)
        later.running = false
        later.sweptUntil = AppleDate(wholeMilliseconds: TestLedger.reference)
        try store.ledger.save(later)

        var earlier = Self.sweep(pages: 1, token: nil)
        earlier.running = false
        earlier.sweptUntil = AppleDate(wholeMilliseconds: TestLedger.reference - 3_600_000)
        try store.ledger.save(earlier)
        let saved = try store.ledger.syncCursor(.sandbox, .notificationHistory)
        #expect(saved.sweptUntil == later.sweptUntil)
        #expect(saved.pages == 1, "the rest of the cursor is the last one saved")

        try store.ledger.save(Self.sweep(pages: 2, token: "token-3"))
        #expect(try store.ledger.syncCursor(.sandbox, .notificationHistory).sweptUntil == later.sweptUntil)

        var further = later
        further.sweptUntil = AppleDate(wholeMilliseconds: TestLedger.reference + 60_000)
        try store.ledger.save(further)
        #expect(try store.ledger.syncCursor(.sandbox, .notificationHistory).sweptUntil == further.sweptUntil)
    }

    @Test func aPageWhoseCursorCannotBeSavedRecordsNothing() throws {
        let store = try TestLedger()
        try store.ledger.execute(
            "CREATE TRIGGER no_cursor BEFORE INSERT ON sync_cursors BEGIN SELECT raise(ABORT, 'refused'); END")
        let tip = try TestChains.verified(try TestChains.transaction(id: "2000000000000702"))
        #expect(throws: StoreError.self) {
            try store.ledger.record([tip], finish: false, saving: Self.sweep(pages: 1, token: "token-2"))
        }
        #expect(try store.count("transactions") == 0)
        #expect(try store.count("evidence") == 0)
    }

    @Test func aRejectedPayloadFailsAloneAndTheCursorIsStillSaved() throws {
        let store = try TestLedger()
        let id = "2000000000000703"
        try store.record(try TestChains.transaction(id: id))
        // Another purchase under the same id contradicts the recorded one.
        let contradicting = try TestChains.verified(try TestChains.transaction(id: id, price: 1990))
        let other = try TestChains.verified(try TestChains.transaction(id: "2000000000000704"))
        let cursor = Self.sweep(pages: 1, token: "token-2")
        let results = try store.ledger.record([contradicting, other], finish: false, saving: cursor)
        #expect(throws: VerificationError.self) { try results[0].get() }
        #expect(try results[1].get().outcome == .recorded)
        #expect(try store.ledger.syncCursor(.sandbox, .notificationHistory) == cursor)
    }
}
