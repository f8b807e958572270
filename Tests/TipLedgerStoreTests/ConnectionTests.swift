// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Connection settings, concurrent writers, backups (docs/ledger.md, "The file").
@Suite struct ConnectionTests {
    let reference = TestLedger.reference

    /// `count` verified tips with distinct ids from `first` on.
    static func tips(_ count: Int, from first: Int) throws -> [VerifiedPayload] {
        try (first..<first + count).map {
            try TestChains.verified(try TestChains.transaction(id: String(2_000_000_000_000_000 + $0)))
        }
    }

    @Test func fileLedgerUsesWALFullSynchronousForeignKeysAndABusyTimeout() throws {
        let store = try TestLedger()

        #expect(try store.ledger.texts("PRAGMA journal_mode") == ["wal"])
        #expect(try store.ledger.integer("PRAGMA synchronous") == 2)
        #expect(try store.ledger.integer("PRAGMA foreign_keys") == 1)
        #expect(try store.ledger.integer("PRAGMA busy_timeout") == 30_000)
        #expect(try store.ledger.integrityCheck() == "ok")
        #expect(store.ledger.isHealthy())
    }

    @Test func aNewLedgerHasPagesSuitedToItsCommitsAndAnOlderOneKeepsItsOwn() throws {
        let store = try TestLedger()
        #expect(try store.ledger.integer("PRAGMA page_size") == 16384)
        // A ledger made for many small commits has small pages, opened or migrated.
        let directory = try TemporaryDirectory()
        let service = try Ledger.open(path: directory.file("service.sqlite"), pages: .forSmallCommits)
        #expect(try service.integer("PRAGMA page_size") == 4096)
        try Ledger.migrate(path: directory.file("migrated.sqlite"), pages: .forSmallCommits)
        let migrated = try Ledger.open(path: directory.file("migrated.sqlite"))
        #expect(try migrated.integer("PRAGMA page_size") == 4096)

        // Ledger files made with SQLite's default 4 KiB pages, or with 8 KiB ones (as before),
        // keep them, and record and check as before.
        for pageSize in [4096, 8192] {
            let directory = try TemporaryDirectory()
            let path = directory.file("older.sqlite")
            let older = try Database(path: ":memory:")
            try older.execute("PRAGMA page_size = \(pageSize); VACUUM INTO '\(path)'")
            let ledger = try Ledger.open(
                path: path, clock: .fixed(AppleDate(wholeMilliseconds: TestLedger.reference)))
            #expect(try ledger.withReader { try $0.pragmaInteger("page_size") } == Int64(pageSize))
            _ = try ledger.record(try TestChains.verified(try TestChains.transaction()), finish: true)
            #expect(try ledger.withReader { try $0.pragmaInteger("page_size") } == Int64(pageSize))
            #expect(try ledger.integrityCheck() == "ok")
        }
    }

    /// The log's limits are bytes, whatever the ledger's page size: a frame of log holds one
    /// page.
    @Test func theLogLimitsAreTheSameBytesWhateverThePageSize() throws {
        for pageSize in [4096, 8192, 16384] {
            let directory = try TemporaryDirectory()
            let path = directory.file("ledger.sqlite")
            let empty = try Database(path: ":memory:")
            try empty.execute("PRAGMA page_size = \(pageSize); VACUUM INTO '\(path)'")
            let ledger = try Ledger.open(path: path, clock: .fixed(AppleDate(wholeMilliseconds: TestLedger.reference)))
            let checkpointer = try #require(ledger.checkpointer)
            #expect(checkpointer.checkpointFrames * pageSize == 256 << 20, "\(pageSize)")
            #expect(checkpointer.minimumFrames * pageSize == 8 << 20, "\(pageSize)")
            #expect(checkpointer.restartFrames * Int64(pageSize) == 32 << 20, "\(pageSize)")
        }
    }

    @Test func memoryLedgerRecordsWithFullSynchronousAndForeignKeys() throws {
        let store = try TestLedger(inMemory: true)

        try store.record(try TestChains.transaction())

        #expect(try store.count("transactions") == 1)
        #expect(try store.ledger.integer("PRAGMA synchronous") == 2)
        #expect(try store.ledger.integer("PRAGMA foreign_keys") == 1)
    }

    /// A file SQLite cannot keep a write-ahead log for (here a temporary database) is refused
    /// with an error at once; asking again for WAL would get the same answer forever.
    @Test func aDatabaseThatCannotUseWALIsRefused() throws {
        #expect {
            _ = try Ledger.open(path: "")
        } throws: { error in
            "\(error)".contains("cannot use write-ahead logging")
        }
    }

    /// A batch that cannot start because another connection holds the write lock fails as busy,
    /// having tried the lock once (one busy timeout), and writes nothing; the same holds for a
    /// recorder's batch.
    @Test func aBusyLedgerFailsAfterOneTryForTheLock() throws {
        let store = try TestLedger()
        let blocker = try Database(path: store.path)
        try blocker.execute("BEGIN IMMEDIATE")
        defer { try? blocker.execute("ROLLBACK") }
        let ledger = try Ledger.open(path: store.path, busyTimeout: .milliseconds(100))
        let payload = try TestChains.verified(try TestChains.transaction())
        let isBusy = { (error: any Error) in (error as? StoreError)?.isTransient == true }

        #expect(performing: { try ledger.record([payload], finish: true) }, throws: isBusy)
        #expect(try ledger.withDatabase { $0.writesBegun } == 1)
        #expect(performing: { try ledger.batchRecorder().record([payload], finish: true) }, throws: isBusy)
        #expect(try ledger.withDatabase { $0.writesBegun } == 2)

        #expect(try store.count("transactions") == 0)
    }

    @Test func foreignKeysAreEnforced() throws {
        let store = try TestLedger()

        // A row that breaks no constraint but its reference to a header that does not exist.
        let error = #expect(throws: StoreError.self) {
            try store.ledger.execute(
                "INSERT INTO evidence (sha256, kind, header_id, body, environment, received_ms) "
                    + "VALUES (zeroblob(32), 'transaction', 999, 'body', 'Sandbox', 0)")
        }
        #expect(error?.message.contains("FOREIGN KEY constraint failed") == true, "\(String(describing: error))")
        #expect(try store.count("evidence") == 0)
    }

    @Test func threadsRecordingIntoOneLedgerAllLand() throws {
        let store = try TestLedger()
        let threads = 4
        let batches = try (0..<threads).map { try Self.tips(25, from: $0 * 100) }
        let failures = Mutex<[String]>([])

        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for payload in batches[thread] {
                do {
                    _ = try store.ledger.record(payload, finish: true)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }

        #expect(failures.withLock { $0 } == [])
        #expect(try store.count("transactions") == 100)
        #expect(try store.ledger.integer("SELECT count(*) FROM events WHERE kind = 'recorded'") == 100)
    }

    @Test func twoConnectionsWritingAtOnceBothFinishAndEveryRowLands() throws {
        let store = try TestLedger()
        let second = try Ledger.open(path: store.path)
        let ledgers = [store.ledger, second]
        let batches = try (0..<2).map { try Self.tips(40, from: $0 * 100) }
        let failures = Mutex<[String]>([])

        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for payload in batches[index] {
                do {
                    _ = try ledgers[index].record([payload], finish: index == 0)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }

        #expect(failures.withLock { $0 } == [])
        #expect(try store.count("transactions") == 80)
        #expect(try second.integer("SELECT count(*) FROM transactions WHERE finished_ms IS NULL") == 40)
        #expect(try store.ledger.integrityCheck() == "ok")
    }

    /// Both connections submit the same tokens at once: each is recorded exactly once, because
    /// the check and the insert share one `BEGIN IMMEDIATE` transaction.
    @Test func twoConnectionsRecordingTheSameTokensRecordEachOnce() throws {
        let store = try TestLedger()
        let second = try Ledger.open(path: store.path)
        let ledgers = [store.ledger, second]
        let payloads = try Self.tips(40, from: 0)
        let outcomes = Mutex<[RecordResult.Outcome]>([])

        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for payload in payloads {
                let outcome = try? ledgers[index].record(payload, finish: true).outcome
                outcomes.withLock { $0.append(outcome ?? .notRecorded) }
            }
        }

        let all = outcomes.withLock { $0 }
        #expect(all.filter { $0 == .recorded }.count == 40)
        #expect(all.filter { $0 == .duplicate }.count == 40)
        #expect(try store.count("transactions") == 40)
        #expect(try store.count("evidence") == 40)
        #expect(try store.ledger.integer("SELECT count(*) FROM events WHERE kind = 'recorded'") == 40)
    }

    /// Two processes starting on a ledger that does not exist yet: both open it, and it is
    /// migrated once.
    @Test(arguments: 1...5)
    func concurrentFirstOpensOfANewFileBothSucceed(round: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("new-\(round).sqlite")
        let failures = Mutex<[String]>([])

        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            do {
                _ = try Ledger.open(path: path)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }

        #expect(failures.withLock { $0 } == [])
        #expect(try Ledger.open(path: path).schemaVersion() == Migration.latestVersion)
    }

    @Test func backupOpensAsALedgerWithTheSameCountsAndPassesIntegrityCheck() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: "2000000000000001")
        try store.record(
            batch: [
                purchase, try TestChains.transaction(id: "2000000000000002", environment: "Production"),
                try TestChains.notification(
                    type: "CONSUMPTION_REQUEST", uuid: TestChains.uuid(1), signedDate: reference + 1, around: purchase),
                try TestChains.notification(
                    type: "REFUND", uuid: TestChains.uuid(2), signedDate: reference + 2, around: purchase),
            ])
        let copyPath = store.directory.file("backup.sqlite")

        try store.ledger.backup(to: copyPath)
        let copy = try Ledger.open(path: copyPath)

        #expect(try copy.integrityCheck() == "ok")
        #expect(try copy.schemaVersion() == Migration.latestVersion)
        #expect(try copy.integer("PRAGMA application_id") == Migrator.applicationID)
        for table in ["jws_headers", "evidence", "transactions", "notifications", "consumption_requests", "events"] {
            let original = try store.count(table)
            #expect(try copy.integer("SELECT count(*) FROM \(table)") == original, "\(table)")
            #expect(original > 0, "\(table)")
        }
        let query = ReportQuery(grouping: .product)
        #expect(try copy.report(query, now: reference).rows == store.ledger.report(query, now: reference).rows)
        #expect(try copy.reverify(with: TestChains.standardVerifier).isEmpty)
    }

    @Test func backupRefusesAnExistingFile() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction())
        let existing = try TestLedger()

        #expect(throws: StoreError.self) { try store.ledger.backup(to: existing.path) }
        #expect(try existing.count("transactions") == 0)
    }
}
