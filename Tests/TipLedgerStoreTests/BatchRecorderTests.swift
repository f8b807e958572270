// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `BatchRecorder`: batches share a write transaction until `commit`, and each batch keeps the
/// ledger's rules on its own (docs/ledger.md: a rejected input writes nothing, and one bad item never
/// loses the good ones around it).
@Suite struct BatchRecorderTests {
    func id(_ number: Int) -> String { String(2_000_000_000_000_000 + number) }

    func transactions(_ numbers: ClosedRange<Int>) throws -> [VerifiedPayload] {
        try numbers.map { try TestChains.verified(TestChains.transaction(id: id($0))) }
    }

    /// What another connection sees: the last committed state.
    func committedCount(_ store: TestLedger) throws -> Int64 {
        try store.ledger.withReader { database in
            try database.queryOne("SELECT count(*) FROM transactions") { $0.int64(0) } ?? -1
        }
    }

    @Test func batchesAreCommittedTogetherAndOnlyByCommit() throws {
        let store = try TestLedger()
        let recorder = store.ledger.batchRecorder()

        let first = try recorder.record(try transactions(1...3), finish: true)
        let second = try recorder.record(try transactions(4...5), finish: true)

        #expect((first + second).map { try? $0.get().outcome } == Array(repeating: .recorded, count: 5))
        #expect(recorder.isOpen)
        #expect(try committedCount(store) == 0)
        try recorder.commit()
        #expect(!recorder.isOpen)
        #expect(try committedCount(store) == 5)
        // The next batch opens another transaction.
        _ = try recorder.record(try transactions(6...6), finish: true)
        #expect(recorder.isOpen)
        #expect(try committedCount(store) == 5)
        try recorder.commit()
        #expect(try committedCount(store) == 6)
    }

    @Test func aRecorderReleasedWithoutCommittingRollsBack() throws {
        let store = try TestLedger()
        do {
            let recorder = store.ledger.batchRecorder()
            try recorder.commit()
            _ = try recorder.record(try transactions(1...2), finish: true)
        }

        #expect(try store.count("transactions") == 0)
        #expect(try store.count("evidence") == 0)
        #expect(try store.record(TestChains.transaction(id: "2000000000000001")).outcome == .recorded)
    }

    /// A rejected item fails alone, in whichever batch of the open transaction it comes, and
    /// writes nothing: the batches before it stay, as do the items around it.
    @Test func aRejectedItemInALaterBatchLeavesTheEarlierBatchesAndItsNeighbours() throws {
        let store = try TestLedger()
        let contradiction = try TestChains.transaction(id: id(2), price: 123_450) { $0.signedDate += TestLedger.hour }
        // A refund whose signed transaction contradicts the recorded one is rejected whole.
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(1), signedDate: TestLedger.reference + TestLedger.hour,
            around: try TestChains.transaction(id: id(3), price: 123_450))
        let recorder = store.ledger.batchRecorder()

        _ = try recorder.record(try transactions(1...3), finish: true)
        let second = try recorder.record(
            [
                try transactions(4...4)[0], try TestChains.verified(contradiction), try TestChains.verified(refund),
                try transactions(6...6)[0],
            ], finish: true)
        try recorder.commit()

        #expect(second.map { (try? $0.get())?.outcome } == [.recorded, nil, nil, .recorded])
        for result in second[1...2] {
            guard case .failure(let error) = result else { continue }
            #expect(error.code == .invalidPayload)
        }
        #expect(
            try store.ledger.texts("SELECT transaction_id FROM transactions ORDER BY transaction_id")
                == [1, 2, 3, 4, 6].map(id))
        #expect(try store.count("evidence") == 5)
        #expect(try store.count("notifications") == 0)
        #expect(try store.ledger.integer("SELECT max(price_milli) FROM transactions") != 123_450)
    }

    /// An item that fails otherwise than by a rejection (here a trigger SQLite runs on its
    /// insert) may have written part of itself: the whole open transaction is rolled back,
    /// every batch since the last commit, and the error thrown. The recorder goes on afresh.
    @Test func anItemFailingOtherwiseLosesTheOpenTransactionAsAWhole() throws {
        let store = try TestLedger()
        try store.ledger.execute(
            """
            CREATE TEMP TRIGGER refuse_one BEFORE INSERT ON transactions
            WHEN NEW.transaction_id = '\(id(5))'
            BEGIN SELECT raise(ABORT, 'provoked failure'); END
            """)
        let recorder = store.ledger.batchRecorder()
        _ = try recorder.record(try transactions(1...1), finish: true)
        try recorder.commit()
        _ = try recorder.record(try transactions(2...3), finish: true)

        #expect(throws: StoreError.self) { try recorder.record(try transactions(4...6), finish: true) }

        #expect(!recorder.isOpen)
        #expect(try store.ledger.texts("SELECT transaction_id FROM transactions") == [id(1)])
        #expect(try store.count("evidence") == 1)
        #expect(try store.count("events") == 2)
        _ = try recorder.record(try transactions(6...7), finish: true)
        try recorder.commit()
        #expect(try store.count("transactions") == 3)
    }

    /// A version of a transaction that contradicts the one an earlier item of the same batch
    /// recorded is rejected, and writes nothing: the batch's first attempt, undone, leaves no
    /// evidence behind for the retry to mistake for a repeat.
    @Test func aContradictionWithinABatchIsRejectedAndWritesNothing() throws {
        let store = try TestLedger()
        let original = try TestChains.transaction(id: "2000000000000777", price: 990)
        let contradiction = try TestChains.transaction(id: "2000000000000777", price: 9990) {
            $0.signedDate += TestLedger.hour
        }
        let recorder = store.ledger.batchRecorder()

        let results = try recorder.record(
            [try TestChains.verified(original), try TestChains.verified(contradiction)], finish: true)
        try recorder.commit()

        #expect((try? results[0].get())?.outcome == .recorded)
        guard case .failure(let error) = results[1] else {
            Issue.record("the contradiction was accepted: \(results[1])")
            return
        }
        #expect(error.code == .invalidPayload)
        #expect(try store.count("evidence") == 1)
        #expect(try store.ledger.integer("SELECT price_milli FROM transactions") == 990)
    }

    /// A full disk makes SQLite roll back the whole open transaction: every batch since the
    /// last commit is gone, and the error says so rather than a later batch starting afresh.
    @Test func aFullDiskLosesTheOpenTransactionAsAWholeAndSaysSo() throws {
        let store = try TestLedger()
        let recorder = store.ledger.batchRecorder()
        _ = try recorder.record(try transactions(1...1), finish: true)
        try recorder.commit()
        _ = try recorder.record(try transactions(2...3), finish: true)
        let pages = try store.ledger.integer("PRAGMA page_count")
        try store.ledger.execute("PRAGMA max_page_count = \(pages + 4)")

        #expect(throws: StoreError.self) { try recorder.record(try transactions(10...109), finish: true) }

        #expect(!recorder.isOpen)
        #expect(try store.count("transactions") == 1)
        try store.ledger.execute("PRAGMA max_page_count = 1000000")
        _ = try recorder.record(try transactions(2...3), finish: true)
        try recorder.commit()
        #expect(try store.count("transactions") == 3)
    }
}
