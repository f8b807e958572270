// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// SPEC 4: a rejected input writes nothing, and one bad item never loses the good ones around it.
@Suite struct BatchTests {
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    /// Makes the store fail every insert of transaction `id`, as a full disk or a constraint
    /// would, so a batch item fails inside its savepoint.
    func refuseTransaction(_ id: String, in store: TestLedger) throws {
        try store.ledger.execute(
            """
            CREATE TEMP TRIGGER refuse_one BEFORE INSERT ON transactions WHEN NEW.transaction_id = '\(id)'
            BEGIN SELECT raise(ABORT, 'provoked failure'); END
            """)
    }

    @Test func itemFailingInsideItsSavepointLeavesTheOthersRecorded() throws {
        let store = try TestLedger()
        try refuseTransaction("2000000000000002", in: store)

        let results = try store.results(ofBatch: [
            try TestChains.transaction(id: "2000000000000001"), try TestChains.transaction(id: "2000000000000002"),
            try TestChains.transaction(id: "2000000000000003"),
        ])

        #expect(results.count == 3)
        #expect((try? results[0].get())?.outcome == .recorded)
        #expect((try? results[2].get())?.outcome == .recorded)
        guard case .failure(let error) = results[1] else {
            Issue.record("the refused item was recorded")
            return
        }
        #expect((error as? StoreError)?.message.contains("provoked failure") == true)
        #expect(
            try store.ledger.texts("SELECT transaction_id FROM transactions ORDER BY transaction_id") == [
                "2000000000000001", "2000000000000003",
            ])
        // Nothing of the failed item stays: no evidence, no event.
        #expect(try store.count("evidence") == 2)
        #expect(try store.ledger.integer("SELECT count(*) FROM events WHERE transaction_id = '2000000000000002'") == 0)
    }

    @Test func notificationFailingInsideItsSavepointIsNotMarkedAsSeen() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: "2000000000000002")
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + hour, around: purchase)
        try refuseTransaction("2000000000000002", in: store)

        let results = try store.results(ofBatch: [try TestChains.transaction(id: "2000000000000001"), refund])

        #expect((try? results[0].get())?.outcome == .recorded)
        guard case .failure(let error) = results[1] else {
            Issue.record("the refund was recorded")
            return
        }
        #expect((error as? StoreError)?.message.contains("provoked failure") == true)
        #expect(try store.count("notifications") == 0)
        #expect(try store.count("evidence") == 1)

        // Once the store works again the same notification applies: it was never half-recorded.
        try store.ledger.execute("DROP TRIGGER refuse_one")
        let retried = try store.record(refund)

        #expect(retried.outcome == .applied)
        #expect(retried.state == .refunded)
    }

    @Test func savepointUndoesOnlyTheFailedItemsChanges() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("savepoints.sqlite"))
        try database.execute("CREATE TABLE items (name TEXT NOT NULL) STRICT")
        struct Refused: Error {}

        try database.writeTransaction {
            _ = try database.savepoint { try database.run("INSERT INTO items VALUES ('kept before')") }
            #expect(throws: Refused.self) {
                try database.savepoint {
                    try database.run("INSERT INTO items VALUES ('undone')")
                    throw Refused()
                }
            }
            _ = try database.savepoint { try database.run("INSERT INTO items VALUES ('kept after')") }
        }

        let names = try database.query("SELECT name FROM items ORDER BY rowid", []) { $0.text(0) }
        #expect(names == ["kept before", "kept after"])
    }

    @Test func failedWriteTransactionWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("transactions.sqlite"))
        try database.execute("CREATE TABLE items (name TEXT NOT NULL) STRICT")
        struct Refused: Error {}

        #expect(throws: Refused.self) {
            try database.writeTransaction {
                try database.run("INSERT INTO items VALUES ('undone')")
                throw Refused()
            }
        }

        #expect(try database.queryOne("SELECT count(*) FROM items") { $0.int64(0) } == 0)
    }

    /// A full disk makes SQLite roll back the whole transaction by itself, in the middle of the
    /// item-by-item pass: the batch must fail as a whole, not go on in new transactions of its own.
    @Test func fullDiskInTheMiddleOfABatchWritesNothingOfIt() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: "1000000000000001"))
        let pages = try store.ledger.integer("PRAGMA page_count")
        // Room for a few items, not for the 100 of the batch.
        try store.ledger.execute("PRAGMA max_page_count = \(pages + 4)")
        let batch = try (1...100).map { try TestChains.transaction(id: String(2_000_000_000_000_000 + $0)) }

        #expect(throws: StoreError.self) { try store.results(ofBatch: batch) }

        #expect(try store.count("transactions") == 1)
        #expect(try store.count("evidence") == 1)
        #expect(try store.ledger.integer("SELECT count(*) FROM events WHERE transaction_id LIKE '2%'") == 0)
        // And the ledger takes writes again once there is room.
        try store.ledger.execute("PRAGMA max_page_count = 1000000")
        #expect(try store.record(batch: Array(batch.prefix(3))).map(\.outcome) == [.recorded, .recorded, .recorded])
    }

    @Test func verifiedRenewalInfoIsNotRecorded() throws {
        let store = try TestLedger()
        var writer = JSONWriter()
        writer.object { payload in
            payload.field("originalTransactionId", "2000000000000001")
            payload.field("autoRenewProductId", "com.example.tips.monthly")
            payload.field("productId", "com.example.tips.monthly")
            payload.field("autoRenewStatus", Int64(1))
            payload.field("signedDate", reference)
            payload.field("environment", "Sandbox")
        }
        let token = try JWSSigner(pki: TestChains.standard).sign(payload: writer.bytes)

        let result = try store.record(token)

        #expect(result == RecordResult(outcome: .notRecorded, transactionId: nil, state: nil, finished: nil))
        #expect(try store.count("evidence") == 0)
    }
}
