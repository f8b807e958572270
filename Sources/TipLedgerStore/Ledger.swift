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
    /// The connection every write goes through, one at a time.
    let connection: LockedDatabase
    /// A second connection for queries (restore, report, health), so they read the last
    /// committed state without waiting for a write in progress (WAL allows that). Nil for an
    /// in-memory ledger, which only one connection can see.
    let reader: LockedDatabase?

    private init(path: String, connection: LockedDatabase, reader: LockedDatabase?, clock: WallClock) {
        self.path = path
        self.clock = clock
        self.connection = connection
        self.reader = reader
    }

    /// Opens the ledger at `path` (creating it when missing) and applies pending migrations.
    /// `:memory:` gives a private in-memory ledger. A write waits up to `busyTimeout` for another
    /// process's write to finish before failing as busy.
    public static func open(path: String, clock: WallClock = .system, busyTimeout: Duration = .seconds(30)) throws
        -> Ledger
    {
        let milliseconds = Int32(clamping: busyTimeout.components.seconds * 1000)
        let database = try Database(path: path, busyTimeoutMilliseconds: milliseconds)
        try Migrator.migrate(database)
        let reader = path == ":memory:" ? nil : LockedDatabase(try Database(path: path, cacheMebibytes: 16))
        return Ledger(path: path, connection: LockedDatabase(database), reader: reader, clock: clock)
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

    /// Runs `body` with the writing connection, holding its lock.
    func withDatabase<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try connection.withLock(body)
    }

    /// Runs `body` with the query connection (the writing one for an in-memory ledger).
    func withReader<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try (reader ?? connection).withLock(body)
    }

    /// `PRAGMA integrity_check`'s answer: "ok" for a sound file.
    public func integrityCheck() throws -> String {
        try withReader { database in
            try database.query("PRAGMA integrity_check", []) { $0.text(0) ?? "" }.joined(separator: "; ")
        }
    }

    /// The schema version of the open ledger.
    public func schemaVersion() throws -> Int {
        try withReader { Int(try $0.pragmaInteger("user_version")) }
    }

    /// Whether the database answers a trivial query (for health checks).
    public func isHealthy() -> Bool {
        (try? withReader { try $0.queryOne("SELECT count(*) FROM sqlite_schema", []) { $0.int64(0) } } ?? 0) ?? 0 > 0
    }

    /// Writes a consistent copy of the ledger to `destination` with `VACUUM INTO`, safe while
    /// other processes use it. The destination must not exist.
    public func backup(to destination: String) throws {
        _ = try withReader { database in
            try database.run("VACUUM INTO ?", destination)
        }
    }
}

/// A connection used by one thread at a time, behind a mutex.
final class LockedDatabase: Sendable {
    private let mutex: Mutex<Database>

    init(_ database: consuming sending Database) {
        mutex = Mutex(database)
    }

    func withLock<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try mutex.withLock { database throws -> sending Result in try body(database) }
    }
}
