internal import Synchronization
// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// The SQLite ledger of tips: verified transactions and notifications, their signed evidence,
/// and an append-only event history. Only verified payloads can be recorded.
///
/// One connection, used under a mutex, so a process never writes concurrently with itself;
/// other processes are serialised by SQLite's lock (`BEGIN IMMEDIATE` with a busy timeout).
public final class Ledger: Sendable {
    /// The database file.
    public let path: String
    let clock: WallClock
    let connection: Mutex<Database>

    private init(path: String, database: consuming sending Database, clock: WallClock) {
        self.path = path
        self.clock = clock
        self.connection = Mutex(database)
    }

    /// Opens the ledger at `path` (creating it when missing) and applies pending migrations.
    /// `:memory:` gives a private in-memory ledger.
    public static func open(path: String, clock: WallClock = .system) throws -> Ledger {
        let database = try Database(path: path)
        try Migrator.migrate(database)
        return Ledger(path: path, database: database, clock: clock)
    }

    /// Applies pending migrations to the ledger at `path`; returns the schema versions before
    /// and after.
    @discardableResult
    public static func migrate(path: String, migrations: [Migration] = Migration.all) throws -> (
        from: Int, to: Int
    ) {
        let database = try Database(path: path)
        let (from, to) = try Migrator.migrate(database, migrations: migrations)
        return (from, to)
    }

    /// Runs `body` with the connection, holding the ledger's lock.
    func withDatabase<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try connection.withLock { database throws -> sending Result in try body(database) }
    }

    /// `PRAGMA integrity_check`'s answer: "ok" for a sound file.
    public func integrityCheck() throws -> String {
        try withDatabase { database in
            try database.query("PRAGMA integrity_check", []) { $0.text(0) ?? "" }.joined(separator: "; ")
        }
    }

    /// The schema version of the open ledger.
    public func schemaVersion() throws -> Int {
        try withDatabase { Int(try $0.pragmaInteger("user_version")) }
    }

    /// Whether the database answers a trivial query (for health checks).
    public func isHealthy() -> Bool {
        (try? withDatabase { try $0.queryOne("SELECT 1", []) { $0.int64(0) } }) == 1
    }

    /// Writes a consistent copy of the ledger to `destination` with `VACUUM INTO`, safe while
    /// other processes use it. The destination must not exist.
    public func backup(to destination: String) throws {
        _ = try withDatabase { database in
            try database.run("VACUUM INTO ?", destination)
        }
    }
}
