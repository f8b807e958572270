// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

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
    /// Set when the ledger is read as an immutable snapshot: every read is checked against it.
    let snapshot: SnapshotGuard?
    /// Whether this process's writes commit, and how many failed.
    public let health = LedgerHealth()

    init(
        path: String, connection: LockedDatabase, readers: ReaderPool?, checkpointer: Checkpointer?, clock: WallClock,
        snapshot: SnapshotGuard? = nil
    ) {
        self.snapshot = snapshot
        self.path = path
        self.clock = clock
        self.connection = connection
        self.readers = readers
        self.checkpointer = checkpointer
    }

    deinit {
        // A checkpoint still running holds a connection; once it is done, every connection
        // closes with the ledger, and the last to close folds the log into the file.
        checkpointer?.waitUntilIdle()
    }

    /// Runs `body`, which writes and commits, with the writing connection; once it returned
    /// (a failed write has nothing to fold into the file), restarts the log if that is due and
    /// asks for a checkpoint when the log has grown enough since the last one. `health` learns
    /// of a failure (thrown explained, `failedWrite`) and of a commit that changed rows.
    func write<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try withDatabase { writer in
            let changes = writer.totalChanges
            let result: Result
            do {
                result = try body(writer)
            } catch {
                throw failedWrite(error)
            }
            if writer.totalChanges != changes { health.committed() }
            didWrite(writer)
            return result
        }
    }

    /// `error`, which made a write fail, noted in `health` and said in words (`explained`).
    func failedWrite(_ error: any Error) -> any Error {
        (error as? StoreError).map(failedWrite) ?? error
    }

    /// `error`, which made a write fail, noted in `health` and said in words (`explained`).
    func failedWrite(_ error: StoreError) -> StoreError {
        let explained = error.explained(writingLedger: path)
        health.failed(explained)
        return explained
    }

    /// The least room a probe wants on the ledger's file system after a write failed for want
    /// of it: room for the log of several requests. The log keeps the room a failed commit
    /// took, which a probe's one page fits in: a probe that committed into that alone would
    /// call the ledger healthy while the next request, which writes several pages, fails.
    static let probeRoomBytes: UInt64 = 1 << 20

    /// Tries whether writes commit again, while `health` reports a fault of the file system or
    /// the disk and nothing tried to commit for `interval`: for a health check, so that the
    /// ledger turns healthy by itself once it can write, even when no client writes. Otherwise
    /// does nothing.
    ///
    /// The probe commits a write that changes nothing the ledger holds: it sets the schema
    /// version (`PRAGMA user_version`) to the version it already has, which still writes the
    /// database's first page to the log and syncs it, as a commit does. After a full disk, it
    /// first wants `probeRoomBytes` free. It waits for no lock: while a write of this process is
    /// in progress, that write's outcome tells; while another process holds the write lock, the
    /// verdict stands.
    public func probeWriteIfDue(every interval: Duration) {
        guard let fault = health.takeProbe(every: interval) else { return }
        if fault == .diskFull, let volume = LedgerVolume.of(ledger: path), volume.availableBytes < Self.probeRoomBytes {
            return
        }
        _ = try? connection.withLockIfAvailable { writer in
            do {
                try writer.withBusyTimeout(milliseconds: 0) {
                    try writer.writeTransaction {
                        let version = try writer.pragmaInteger("user_version")
                        try writer.execute("PRAGMA user_version = \(version)")
                    }
                }
                health.committed()
                didWrite(writer)
            } catch let error as StoreError where error.fault != .busy {
                health.failed(error.explained(writingLedger: path), counted: false)
            } catch {}
        }
    }

    /// After a commit on the writing connection: restarts the log if that is due, and asks
    /// for a checkpoint when the log has grown enough since the last one.
    func didWrite(_ writer: Database) {
        guard let checkpointer else { return }
        checkpointer.restartIfDue(writer)
        // A failed count leaves the threshold at its largest, `checkpointFrames`.
        let pages = (try? writer.pragmaInteger("page_count")).map(Int.init) ?? Int.max
        checkpointer.didCommit(logFrames: writer.logFrames, databasePages: pages)
    }

    /// Starts copying the log into the file in the background now, rather than when it has
    /// grown by the checkpoint threshold: for a writer that is about to finish, so that closing
    /// the ledger (which copies whatever is left) has little to do.
    public func checkpointSoon() {
        checkpointer?.request()
    }

    /// Runs `body` with the writing connection, holding its lock.
    func withDatabase<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        try snapshot.guarding { try connection.withLock(body) }
    }

    /// Runs `body` with a query connection (the writing one for an in-memory ledger).
    func withReader<Result: Sendable>(_ body: (Database) throws -> Result) throws -> Result {
        do {
            guard let readers else { return try connection.withLock(body) }
            return try snapshot.guarding { try readers.with(body) }
        } catch let error as StoreError where error.fault == .damaged {
            // A write would meet the same damage, or worse, miss it and go on writing.
            health.failed(error, counted: false)
            throw error
        }
    }

    /// `PRAGMA integrity_check`'s answer: "ok" for a sound file.
    package func integrityCheck() throws -> String {
        try withReader { database in
            try database.query("PRAGMA integrity_check", []) { $0.text(0) ?? "" }.joined(separator: "; ")
        }
    }

    /// The schema version of the open ledger.
    func schemaVersion() throws -> Int {
        try withReader { Int(try $0.pragmaInteger("user_version")) }
    }

    /// Whether the database answers a trivial query (for health checks).
    public func isHealthy() -> Bool {
        let tables = try? withReader { try $0.queryOne("SELECT count(*) FROM sqlite_schema") { $0.int64(0) } }
        return (tables ?? nil ?? 0) > 0
    }
}
