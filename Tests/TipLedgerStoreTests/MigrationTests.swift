// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// The schema (docs/ledger.md): numbered migrations, one transaction each, recorded in `user_version`; newer and
/// foreign databases refused.
@Suite struct MigrationTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.file("ledger.sqlite")
    }

    /// A migration after the embedded ones.
    static func extra(_ sql: String, name: String = "extra") -> Migration {
        let version = Migration.latestVersion + 1
        return Migration(version: version, name: "\(fourDigits(version))_\(name).sql", sql: sql)
    }

    /// The schema as SQLite records it, to compare before and after.
    static func schema(at path: String) throws -> [String] {
        let database = try Database(path: path)
        return try database.query(
            "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name", []
        ) { $0.text(0) ?? "" }
    }

    static func pragma(_ name: String, at path: String) throws -> Int64 {
        try Database(path: path).pragmaInteger(name)
    }

    @Test func freshLedgerHasTheLatestVersionAndTheApplicationId() throws {
        let ledger = try Ledger.open(path: path)

        #expect(try ledger.schemaVersion() == Migration.latestVersion)
        #expect(try ledger.integer("PRAGMA application_id") == 0x5450_4C47)
        #expect(
            try ledger.texts("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") == [
                "consumption_answers", "consumption_requests", "events", "evidence", "jws_headers", "notifications",
                "sync_cursors", "transactions",
            ])
        #expect(
            try ledger.integer(
                "SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND strict = 0 "
                    + "AND name NOT LIKE 'sqlite_%'") == 0)
    }

    @Test func migratingAFreshFileReportsBothVersions() throws {
        let versions = try Ledger.migrate(path: path)

        #expect(versions.from == 0)
        #expect(versions.to == Migration.latestVersion)
    }

    @Test func migratingAnUpToDateLedgerChangesNothing() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction())
        let before = try Self.schema(at: store.path)

        let versions = try Ledger.migrate(path: store.path)

        #expect(versions.from == Migration.latestVersion)
        #expect(versions.to == Migration.latestVersion)
        #expect(try Self.schema(at: store.path) == before)
        #expect(try store.count("transactions") == 1)
    }

    @Test func ledgerWithANewerSchemaIsRefusedNamingBothVersions() throws {
        try Ledger.migrate(
            path: path, migrations: Migration.all + [Self.extra("CREATE TABLE later (id INTEGER) STRICT;")])

        let error = try #require(throws: StoreError.self) { try Ledger.open(path: path) }

        #expect(error.message.contains("schema version \(Migration.latestVersion + 1)"))
        #expect(error.message.contains("newer than this tipledger's \(Migration.latestVersion)"))
        #expect(error.hint != nil)
        #expect(try Self.pragma("user_version", at: path) == Int64(Migration.latestVersion + 1))
    }

    @Test func sqliteFileOfAnotherApplicationIsRefusedWithItsSchemaUnchanged() throws {
        let other = try Database(path: path)
        try other.execute("PRAGMA application_id = 1234; CREATE TABLE notes (body TEXT);")
        let before = try Self.schema(at: path)

        let error = try #require(throws: StoreError.self) { try Ledger.open(path: path) }

        #expect(error.message.contains("another application"))
        #expect(try Self.schema(at: path) == before)
        #expect(try Self.pragma("user_version", at: path) == 0)
    }

    @Test func sqliteFileWithTablesButNoApplicationIdIsRefusedToo() throws {
        let other = try Database(path: path)
        try other.execute("CREATE TABLE notes (body TEXT);")
        let before = try Self.schema(at: path)

        let error = try #require(throws: StoreError.self) { try Ledger.open(path: path) }

        #expect(error.message.contains("another application"))
        #expect(try Self.schema(at: path) == before)
    }

    /// Litestream adds two tables of its own to any database it replicates, and may find a new
    /// ledger's file before tipledger wrote its schema: those alone do not make the file another
    /// application's.
    @Test(arguments: [
        (
            tables: "CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER); "
                + "CREATE TABLE _litestream_lock (id INTEGER);", refused: false
        ),
        (
            tables:
                "CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER); CREATE TABLE notes (body TEXT);",
            refused: true
        ),
        (tables: "CREATE TABLE xlitestream_seq (id INTEGER);", refused: true),
    ])
    func litestreamsOwnTablesAloneLeaveTheFileANewLedger(tables: String, refused: Bool) throws {
        try Database(path: path).execute(tables)
        if refused {
            let error = try #require(throws: StoreError.self) { try Ledger.open(path: path) }
            #expect(error.message.contains("another application"))
        } else {
            let ledger = try Ledger.open(path: path)
            #expect(try ledger.schemaVersion() == Migration.latestVersion)
            #expect(try Self.pragma("application_id", at: path) == Migrator.applicationID)
        }
    }

    @Test func failedMigrationLeavesThePreviousSchemaAndVersion() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction())
        let before = try Self.schema(at: store.path)
        let bad = Self.extra("CREATE TABLE half_done (id INTEGER) STRICT;\nTHIS IS NOT SQL;", name: "bad")

        let error = try #require(throws: StoreError.self) {
            try Ledger.migrate(path: store.path, migrations: Migration.all + [bad])
        }

        #expect(error.message.contains("migration \(bad.name) failed"))
        #expect(error.hint?.contains("schema version \(Migration.latestVersion)") == true)
        #expect(try Self.schema(at: store.path) == before)
        #expect(try Self.pragma("user_version", at: store.path) == Int64(Migration.latestVersion))
        #expect(try store.count("transactions") == 1)
        #expect(try Ledger.open(path: store.path).schemaVersion() == Migration.latestVersion)
    }

    @Test func laterMigrationAppliesToAnExistingLedgerInOneStep() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction())
        let later = Self.extra("ALTER TABLE transactions ADD COLUMN note TEXT;")

        let versions = try Ledger.migrate(path: store.path, migrations: Migration.all + [later])

        #expect(versions.from == Migration.latestVersion)
        #expect(versions.to == Migration.latestVersion + 1)
        #expect(try Self.pragma("user_version", at: store.path) == Int64(Migration.latestVersion + 1))
        #expect(try Self.schema(at: store.path).contains { $0.contains("note TEXT") })
    }

    /// A ledger made by the first migration alone, the shape of every ledger before 0002,
    /// holding a tip (`purchase`, its token) and the refund notification that refunded it.
    static func firstVersionLedger(at path: String) throws -> (database: Database, purchase: String) {
        let database = try Database(path: path)
        try Migrator.migrate(database, migrations: Array(Migration.all.prefix(1)))
        let purchase = try TestChains.transaction(id: "2000000000000001")
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(1), signedDate: TestLedger.reference + TestLedger.hour,
            around: purchase)
        try database.writeTransaction {
            let results = try RecordWriter(database: database, now: TestLedger.reference).recordEach(
                [try TestChains.verified(purchase), try TestChains.verified(refund)], finish: true)
            #expect(results.allSatisfy { (try? $0.get()) != nil })
        }
        return (database, purchase)
    }

    /// Every column of every evidence row, in id order.
    static func evidenceRows(_ database: Database) throws -> [String] {
        try database.query(
            """
            SELECT quote(id) || ' ' || quote(sha256) || ' ' || quote(kind) || ' ' || quote(header_id) || ' '
                || quote(body) || ' ' || quote(environment) || ' ' || quote(bundle_id) || ' ' || quote(signed_date_ms)
                || ' ' || quote(transaction_id) || ' ' || quote(notification_uuid) || ' '
                || quote(verifier_fingerprint) || ' ' || quote(clock_free) || ' ' || quote(received_ms)
            FROM evidence ORDER BY id
            """, []
        ) { $0.text(0) ?? "" }
    }

    @Test func theShortKeyMigrationKeepsEveryEvidenceRowAndWhatReferencesIt() throws {
        let (database, purchase) = try Self.firstVersionLedger(at: path)
        let before = try Self.evidenceRows(database)
        let references = "SELECT evidence_id FROM transactions UNION ALL SELECT evidence_id FROM notifications"
        let referenced = try database.query(references, []) { $0.int64(0) }
        #expect(before.count == 3)
        #expect(try Self.schema(at: path).contains { $0.hasPrefix("index sqlite_autoindex_evidence_1") })

        let versions = try Migrator.migrate(database)

        #expect(versions == (1, Migration.latestVersion))
        #expect(try Self.evidenceRows(database) == before)
        #expect(try database.query(references, []) { $0.int64(0) } == referenced)
        #expect(try database.query("PRAGMA foreign_key_check", []) { $0.text(0) }.isEmpty)
        #expect(try database.pragmaInteger("foreign_keys") == 1)
        let schema = try Self.schema(at: path)
        #expect(schema.contains { $0.hasPrefix("index evidence_by_digest") })
        #expect(!schema.contains { $0.hasPrefix("index sqlite_autoindex_evidence_1") })
        #expect(!schema.contains { $0.contains("evidence_0002") })

        let ledger = try Ledger.open(path: path, clock: .fixed(AppleDate(wholeMilliseconds: TestLedger.reference)))
        let restore = try ledger.restore(account: "7e3fb20b-4cdb-47cc-936d-99d65f608138", includeAll: true)
        #expect(restore.transactions.map(\.state) == [.refunded])
        #expect(try ledger.record(try TestChains.verified(purchase), finish: true).outcome == .duplicate)
        #expect(try ledger.integer("SELECT count(*) FROM evidence") == 3)
    }

    /// A failed migration is named, and its file's opening comment is not quoted as the SQL
    /// that failed.
    @Test func aFailedMigrationIsNamedWithoutQuotingItsFile() throws {
        let store = try TestLedger()
        let database = try Database(path: store.path)
        let failing = Self.extra(
            "-- SPDX-License-Identifier: GPL-3.0-or-later\n-- A table the ledger has.\nCREATE TABLE events (x);",
            name: "clash")

        let error = try #require(throws: StoreError.self) {
            try Migrator.migrate(database, migrations: Migration.all + [failing])
        }

        #expect(error.message.contains("migration \(failing.name) failed: table events already exists"))
        #expect(!error.description.contains("SPDX"), "\(error.description)")
        #expect(try Self.pragma("user_version", at: store.path) == Int64(Migration.latestVersion))
    }

    /// A new ledger gets its whole schema in one transaction: when any migration fails, none
    /// is kept, so no process opening the file ever finds a version between none and the latest
    /// (which it would take for an old ledger to upgrade).
    @Test func aNewLedgerWhoseCreationFailsIsLeftWithoutASchema() throws {
        let database = try Database(path: path)
        let failing = Self.extra("CREATE TABLE events (x);", name: "clash")

        let error = try #require(throws: StoreError.self) {
            try Migrator.migrate(database, migrations: Migration.all + [failing])
        }

        #expect(error.message.contains("migration \(failing.name) failed: table events already exists"))
        #expect(error.hint == "nothing was written: the new ledger has no schema yet")
        #expect(try Self.pragma("user_version", at: path) == 0)
        #expect(try Self.schema(at: path).isEmpty)
        // The empty file is made a ledger by the next creating open, whole.
        #expect(try Ledger.open(path: path).schemaVersion() == Migration.latestVersion)
    }

    @Test func aMigrationThatLeavesBrokenReferencesIsUndoneAndForeignKeysStayOn() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction())
        let database = try Database(path: store.path)
        let orphaning = Self.extra("DELETE FROM evidence;", name: "orphans")

        let error = try #require(throws: StoreError.self) {
            try Migrator.migrate(database, migrations: Migration.all + [orphaning])
        }

        #expect(error.message.contains("migration \(orphaning.name) failed"))
        #expect(error.message.contains("rows of transactions with broken references"))
        #expect(try Self.pragma("user_version", at: store.path) == Int64(Migration.latestVersion))
        #expect(try store.count("evidence") == 1)
        #expect(try database.pragmaInteger("foreign_keys") == 1)
    }

    /// `scripts/embed` must have run after every change to `migrations/`: the binary carries
    /// exactly the files, in order, with the same text.
    @Test func embeddedMigrationsEqualTheFilesInTheMigrationsFolder() throws {
        let folder = Fixtures.projectDirectory + "/migrations"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }.sorted()

        #expect(Migration.all.map(\.name) == names)
        #expect(Migration.all.map(\.version) == Array(1...names.count))
        #expect(Migration.latestVersion == names.count)
        for (migration, name) in zip(Migration.all, names) {
            var text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            while text.hasSuffix("\n") { text.removeLast() }
            #expect(migration.sql == text, "\(name) differs from its embedded copy; run scripts/embed")
            #expect(name.hasPrefix("\(fourDigits(migration.version))_"), "\(name)")
        }
    }
}

/// `number` with leading zeros to four digits, as migration files are named.
func fourDigits(_ number: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
