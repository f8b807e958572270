internal import Dispatch
internal import Synchronization
// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

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
    /// Connections for queries (restore, report, health, repeat lookups), so they read the last
    /// committed state without waiting for a write in progress (WAL allows that), several at
    /// once. Nil for an in-memory ledger, which only one connection can see.
    let readers: ReaderPool?
    /// Copies committed pages from the write-ahead log into the database file on its own thread,
    /// so the writer does not stop for it. Nil for an in-memory ledger.
    let checkpointer: Checkpointer?

    private init(
        path: String, connection: LockedDatabase, readers: ReaderPool?, checkpointer: Checkpointer?, clock: WallClock
    ) {
        self.path = path
        self.clock = clock
        self.connection = connection
        self.readers = readers
        self.checkpointer = checkpointer
    }

    /// Opens the ledger at `path` (creating it when missing) and applies pending migrations.
    /// `:memory:` gives a private in-memory ledger. A write waits up to `busyTimeout` for another
    /// process's write to finish before failing as busy.
    public static func open(
        path: String, clock: WallClock = .system, busyTimeout: Duration = .seconds(30),
        upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> Ledger {
        try open(
            path: path, clock: clock, busyTimeout: busyTimeout, checkpointFrames: Checkpointer.checkpointFrames,
            restartFrames: Checkpointer.restartFrames, upgrading: upgrading)
    }

    /// `open`, checkpointing every `checkpointFrames` frames of log and restarting a log longer
    /// than `restartFrames` (tests use small numbers).
    static func open(
        path: String, clock: WallClock, busyTimeout: Duration, checkpointFrames: Int, restartFrames: Int64,
        upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> Ledger {
        let milliseconds = Int32(clamping: Int64((busyTimeout / .milliseconds(1)).rounded(.up)))
        let database = try Database(path: path, busyTimeoutMilliseconds: milliseconds)
        try Migrator.migrate(database, upgrading: upgrading)
        guard path != ":memory:" else {
            return Ledger(
                path: path, connection: LockedDatabase(database), readers: nil, checkpointer: nil, clock: clock)
        }
        // The writer no longer checkpoints as it commits; the checkpointer does, once the log
        // has grown enough.
        database.watchLog()
        let checkpointer = Checkpointer(
            LockedDatabase(try Database(path: path, busyTimeoutMilliseconds: milliseconds, cacheMebibytes: 1)),
            checkpointFrames: checkpointFrames, restartFrames: restartFrames)
        return Ledger(
            path: path, connection: LockedDatabase(database),
            readers: ReaderPool(path: path, busyTimeoutMilliseconds: milliseconds), checkpointer: checkpointer,
            clock: clock)
    }

    /// Applies pending migrations to the ledger at `path`; returns the schema versions before
    /// and after. `upgrading` is told them first when an existing ledger is to be migrated.
    @discardableResult
    public static func migrate(
        path: String, migrations: [Migration] = Migration.all, upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> (from: Int, to: Int) {
        let database = try Database(path: path)
        let (from, to) = try Migrator.migrate(database, migrations: migrations, upgrading: upgrading)
        return (from, to)
    }

    deinit {
        // A checkpoint still running holds a connection; once it is done, every connection
        // closes with the ledger, and the last to close folds the log into the file.
        checkpointer?.waitUntilIdle()
    }

    /// Runs `body`, which writes and commits, with the writing connection; once it returned
    /// (a failed write has nothing to fold into the file), restarts the log if that is due and
    /// asks for a checkpoint when the log has grown enough since the last one.
    func write<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try withDatabase { writer in
            let result = try body(writer)
            didWrite(writer)
            return result
        }
    }

    /// After a commit on the writing connection: restarts the log if that is due, and asks
    /// for a checkpoint when the log has grown enough since the last one.
    func didWrite(_ writer: Database) {
        checkpointer?.restartIfDue(writer)
        checkpointer?.didCommit(logFrames: writer.logFrames)
    }

    /// Starts copying the log into the file in the background now, rather than when it has
    /// grown by the checkpoint threshold: for a writer that is about to finish, so that closing
    /// the ledger (which copies whatever is left) has little to do.
    public func checkpointSoon() {
        checkpointer?.request()
    }

    /// Runs `body` with the writing connection, holding its lock.
    func withDatabase<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try connection.withLock(body)
    }

    /// Runs `body` with a query connection (the writing one for an in-memory ledger).
    func withReader<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        guard let readers else { return try connection.withLock(body) }
        return try readers.with(body)
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
        let tables = try? withReader { try $0.queryOne("SELECT count(*) FROM sqlite_schema") { $0.int64(0) } }
        return (tables ?? nil ?? 0) > 0
    }

    /// Writes a consistent copy of the ledger to `destination` with `VACUUM INTO`, safe while
    /// other processes use it. The destination must not exist.
    public func backup(to destination: String) throws {
        _ = try withReader { database in
            do {
                try database.run("VACUUM INTO ?", destination)
            } catch let error as StoreError where error.code & 0xff == 14 {
                // SQLITE_CANTOPEN: the copy could not be created. SQLite does not say why (and its
                // errno is that of a read-only retry, "no such file" whatever the cause), so the
                // destination's directory is asked.
                let slash = destination.lastIndex(of: "/")
                let directory = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
                let reason =
                    access(directory, F_OK) != 0
                    ? "no such directory"
                    : access(directory, W_OK) != 0 ? "the directory is not writable by this user" : error.message
                throw StoreError(
                    code: error.code, message: "cannot write the backup to \(destination): \(reason)",
                    hint: "choose a path in an existing directory this user can write")
            }
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

/// Query connections, each used by one thread at a time and kept for reuse.
final class ReaderPool: Sendable {
    let path: String
    /// Connections kept for reuse; more may exist briefly under a burst of readers.
    let capacity: Int
    private let idle = Mutex<[Database]>([])

    /// How long a reader waits when the database is locked, as the writer does.
    let busyTimeoutMilliseconds: Int32

    init(path: String, busyTimeoutMilliseconds: Int32 = Database.defaultBusyTimeoutMilliseconds, capacity: Int = 8) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.capacity = capacity
    }

    func with<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        let taken = idle.withLock { $0.popLast() }
        // A small page cache: readers look up indexes, the writer keeps the big cache.
        let database =
            try taken ?? Database(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, cacheMebibytes: 2)
        defer {
            idle.withLock { idle in
                if idle.count < capacity { idle.append(database) }
            }
        }
        return try body(database)
    }
}

/// Runs passive checkpoints on a serial queue with its own connection, one at a time (a request
/// made while one runs is folded into the next), copying committed pages from the log into the
/// file without holding up the writer or readers.
///
/// A passive checkpoint never restarts the log, and with readers always about (the repeat
/// lookups) SQLite would never restart it on its own either: it grew by gigabytes over a million
/// lines. So once the log is large and fully copied, the writer restarts it itself between two
/// write transactions (`restartIfDue`), waiting briefly for readers to step off it.
///
/// Checkpoints wait until the log has grown by `checkpointFrames`: a page that several commits
/// in between wrote (an index page keyed by random values, in a large ledger) is then copied
/// into the file once rather than once per commit. Recording 200,000 lines took a fifth less
/// time than with a checkpoint after every commit.
final class Checkpointer: Sendable {
    /// Frames (pages) the log may hold before the writer restarts it, by default: 32 MiB of
    /// 8 KiB pages.
    static let restartFrames: Int64 = 4096
    /// Frames committed to the log between two checkpoints, by default: 256 MiB of 8 KiB pages.
    static let checkpointFrames = 32_768
    /// The longest the writer waits for readers to step off the log when restarting it. It
    /// holds the write lock meanwhile, so a reader that takes longer (a report over a large
    /// ledger, a backup) has the restart tried again later rather than every write held up:
    /// once the log has grown by another quarter of `restartFrames`, so a reader that stays for
    /// long costs a wait every few megabytes of log, not every commit.
    static let restartWaitMilliseconds: Int32 = 20

    let checkpointFrames: Int
    let restartFrames: Int64

    private let database: LockedDatabase
    private let queue = DispatchQueue(label: "tipledger.checkpoint")
    private let state = Mutex((running: false, requested: false, restartDue: false, retryAtFrames: 0))
    /// The log's length in frames when the last checkpoint was asked for.
    private let framesAtLastRequest = Mutex(0)
    /// Checkpoints run so far.
    let checkpointsRun = Atomic(0)
    /// Restarts of the log tried so far, whether readers let them through or not.
    let restartsTried = Atomic(0)

    init(
        _ database: LockedDatabase, checkpointFrames: Int = Checkpointer.checkpointFrames,
        restartFrames: Int64 = Checkpointer.restartFrames
    ) {
        self.database = database
        self.checkpointFrames = checkpointFrames
        self.restartFrames = restartFrames
    }

    /// Asks for a checkpoint once `logFrames` (the log's length after a commit) is
    /// `checkpointFrames` past the last request; a log shorter than then was restarted.
    func didCommit(logFrames: Int) {
        let due = framesAtLastRequest.withLock { last -> Bool in
            if logFrames < last { last = 0 }
            guard logFrames - last >= checkpointFrames else { return false }
            last = logFrames
            return true
        }
        if due { request() }
    }

    func request() {
        let start = state.withLock { state -> Bool in
            if state.running {
                state.requested = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { self.run() } }
    }

    /// Restarts the log on the writer's own connection when a checkpoint found it large and
    /// fully copied; call between write transactions.
    func restartIfDue(_ writer: Database) {
        let due = state.withLock { state in
            guard state.restartDue, writer.logFrames >= state.retryAtFrames else { return false }
            state.restartDue = false
            return true
        }
        guard due else { return }
        restartsTried.add(1, ordering: .relaxed)
        // The first column says whether readers kept the log busy until the wait ran out. A
        // failure is left to the next checkpoint, which finds the log long again.
        let busy = try? writer.withBusyTimeout(milliseconds: Self.restartWaitMilliseconds) {
            try writer.queryOne("PRAGMA wal_checkpoint(RESTART)") { $0.int64(0) }
        }
        if busy == 1 {
            let retryAt = writer.logFrames + max(1, Int(restartFrames / 4))
            state.withLock { state in
                state.restartDue = true
                state.retryAtFrames = retryAt
            }
        }
    }

    /// Whether a restart of the log is pending (tried after a commit once it is due).
    var isRestartDue: Bool { state.withLock { $0.restartDue } }

    /// Returns once no checkpoint is running or queued.
    func waitUntilIdle() {
        queue.sync {}
    }

    private func run() {
        while true {
            // Columns: busy, frames in the log, frames copied into the file. A failure leaves
            // the pages in the log for the next attempt.
            let frames = try? database.withLock { database in
                try database.queryOne("PRAGMA wal_checkpoint(PASSIVE)") { ($0.int64(1), $0.int64(2)) }
            }
            checkpointsRun.add(1, ordering: .relaxed)
            let again = state.withLock { state -> Bool in
                if let (log, copied) = frames ?? nil, log > restartFrames, copied == log {
                    state.restartDue = true
                    state.retryAtFrames = 0
                }
                if state.requested {
                    state.requested = false
                    return true
                }
                state.running = false
                return false
            }
            if !again { return }
        }
    }
}
