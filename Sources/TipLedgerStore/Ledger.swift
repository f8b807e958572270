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
    /// Set when the ledger is read as an immutable snapshot: every read is checked against it.
    let snapshot: SnapshotGuard?
    /// Whether this process's writes commit, and how many failed.
    public let health = LedgerHealth()

    private init(
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

    /// Opens the ledger at `path` (creating it when missing) and applies pending migrations.
    /// `:memory:` gives a private in-memory ledger. A write waits up to `busyTimeout` for another
    /// process's write to finish before failing as busy.
    ///
    /// `reading` opens an existing ledger to read it, leaving the file as it is (a backup keeps
    /// its rollback journal) but for pending migrations; a ledger this user may not write, or
    /// whose directory it may not write, is opened read-only, and then refused if it needs
    /// migrating.
    ///
    /// `replicated` says that a replicator such as Litestream reads the write-ahead log and
    /// checkpoints it: the ledger then never checkpoints the log itself.
    public static func open(
        path: String, clock: WallClock = .system, busyTimeout: Duration = .seconds(30), reading: Bool = false,
        creating: Bool = true, replicated: Bool = false, upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> Ledger {
        try open(
            path: path, clock: clock, busyTimeout: busyTimeout, checkpointFrames: nil, restartFrames: nil,
            reading: reading, creating: creating, replicated: replicated, upgrading: upgrading)
    }

    /// `open`, checkpointing every `checkpointFrames` frames of log and restarting a log longer
    /// than `restartFrames` (tests use small numbers); nil for the defaults
    /// (`Checkpointer.frames(pageSize:)`).
    static func open(
        path: String, clock: WallClock, busyTimeout: Duration, checkpointFrames: Int?, restartFrames: Int64?,
        reading: Bool = false, creating: Bool = true, replicated: Bool = false,
        upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> Ledger {
        let milliseconds = Int32(clamping: Int64((busyTimeout / .milliseconds(1)).rounded(.up)))
        if !reading { try refuseUnwritable(path) }
        let file = reading && path != ":memory:" ? resolved(path) : nil
        let access = try file.map { try Self.readingAccess($0, named: path) } ?? .write
        let snapshot = access == .snapshot ? file.map { SnapshotGuard(file: $0, path: path) } : nil
        let database = try Database(path: path, busyTimeoutMilliseconds: milliseconds, access: access)
        if replicated && access.mayWrite && path != ":memory:" {
            // Litestream copies each frame of the log out before it lets the log be copied into
            // the file and restarted: it holds a read transaction open, and checkpoints itself
            // between its reads (https://litestream.io/tips/). A checkpoint of tipledger's in the
            // moments when it holds none (before its first read after it starts) lets the next
            // commit restart the log over frames it never read, and it must then copy the whole
            // ledger again. So this connection does not checkpoint after a migration's commits
            // either (SQLite would, once 1,000 frames are in the log), and no `Checkpointer` runs.
            try database.execute("PRAGMA wal_autocheckpoint = 0")
        }
        _ = try snapshot.guarding { try Migrator.migrate(database, creating: creating, upgrading: upgrading) }
        guard path != ":memory:" else {
            return Ledger(
                path: path, connection: LockedDatabase(database), readers: nil, checkpointer: nil, clock: clock)
        }
        guard access.mayWrite && !replicated else {
            // Nothing to checkpoint: this process writes nothing, or the replicator checkpoints.
            return Ledger(
                path: path, connection: LockedDatabase(database),
                readers: ReaderPool(path: path, busyTimeoutMilliseconds: milliseconds, access: access),
                checkpointer: nil, clock: clock, snapshot: snapshot)
        }
        // The writer no longer checkpoints as it commits; the checkpointer does, once the log
        // has grown enough.
        database.watchLog()
        let frames = Checkpointer.frames(pageSize: Int(try database.pragmaInteger("page_size")))
        let checkpointer = Checkpointer(
            LockedDatabase(
                try Database(path: path, busyTimeoutMilliseconds: milliseconds, cacheMebibytes: 1, access: access)),
            checkpointFrames: checkpointFrames ?? frames.checkpoint, minimumFrames: frames.minimum,
            restartFrames: restartFrames ?? frames.restart)
        return Ledger(
            path: path, connection: LockedDatabase(database),
            readers: ReaderPool(path: path, busyTimeoutMilliseconds: milliseconds, access: access),
            checkpointer: checkpointer, clock: clock)
    }

    /// How to open the ledger at `file` (`path` with its links followed) to read it: as it is
    /// when this user may write the file
    /// and the directory SQLite keeps the journal or the -wal and -shm files in (beside the
    /// file a symbolic link leads to); otherwise read-only, through the -wal and -shm files of
    /// a connection that has it open, or, when none has, as an immutable snapshot that creates
    /// no file beside it.
    private static func readingAccess(_ file: String, named path: String) throws(StoreError) -> Database.Access {
        if access(file, W_OK) == 0 && access(directory(of: file), W_OK) == 0 { return .read }
        guard access(file + "-wal", F_OK) == 0 else { return .snapshot }
        // SQLite would make the -shm file itself, this user's, and the owner could not write.
        guard access(file + "-shm", R_OK) == 0 else {
            throw StoreError(
                code: 0, message: "the ledger \(path) has a -wal file but no -shm file this user can read",
                hint: "let its owner open it once (tipledger migrate), or read a copy of the ledger")
        }
        return .readOnly
    }

    /// Refuses to write the ledger at `path` when this user may not write the file but may write
    /// its directory, before SQLite opens it: SQLite would open it read-only and create the -wal
    /// and -shm files beside it as this user's, and then its owner could not write it any more.
    /// (When the directory is read-only too, SQLite creates nothing and says which is read-only.)
    /// Anything else (a directory, a file that is no database) is left to SQLite's own, more
    /// telling errors.
    private static func refuseUnwritable(_ path: String) throws(StoreError) {
        guard path != ":memory:" else { return }
        let file = resolved(path)
        // SQLite would open the file read-only and fail later, on the -wal file it cannot make.
        if LedgerVolume.of(ledger: file)?.isReadOnly == true {
            throw StoreError(
                code: 0, message: "the ledger \(path) is on a file system mounted read-only",
                hint: StoreError.readOnlyHint, fault: .readOnly)
        }
        var status = stat()
        guard stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(file, W_OK) != 0,
            access(directory(of: file), W_OK) == 0, !isOtherThanSQLite(file)
        else { return }
        throw StoreError(
            code: 0, message: "this user may not write the ledger \(path)",
            hint: "run tipledger as the ledger's owner, or let this user write it; "
                + "report, restore, pending and reverify only read it")
    }

    /// Whether `file` is readable and begins otherwise than an SQLite database does. An empty
    /// file is a ledger not set up yet.
    private static func isOtherThanSQLite(_ file: String) -> Bool {
        let descriptor = Glibc.open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 16) }
        return count > 0 && !header[..<count].elementsEqual(Array("SQLite format 3\0".utf8).prefix(count))
    }

    /// `path` with its symbolic links followed (`realpath(3)`), or as it is when that fails.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// The directory a file is in: "." for a bare name.
    static func directory(of path: String) -> String {
        let slash = path.lastIndex(of: "/")
        return slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// Applies pending migrations to the ledger at `path`; returns the schema versions before
    /// and after. `upgrading` is told them first when an existing ledger is to be migrated.
    @discardableResult
    public static func migrate(
        path: String, migrations: [Migration] = Migration.all, upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> (from: Int, to: Int) {
        try refuseUnwritable(path)
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
        // A failed count leaves the threshold at its largest: checkpoints as before.
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
            guard database.openedFor.mayWrite else {
                // SQLite 3.40 refuses it: "table vacuum_db.transactions has 25 columns but 29
                // values were supplied" (the generated columns), on a read-only connection only.
                throw StoreError(
                    code: 0, message: "cannot back up \(path): this user may not write it or its directory",
                    hint: "back it up as a user who can, or copy the file while no process writes it")
            }
            // Written under a name of its own, then given `destination`'s: a backup that fails
            // (a full disk) or is killed leaves no file there to be taken for a copy, nor one that
            // stops the next try. A killed one leaves its `.partial-…` file behind.
            let partial = try Self.createPartial(for: destination)
            defer {
                unlink(partial)
                unlink(partial + "-journal")
            }
            // VACUUM INTO writes into an empty file as into a new one. The file made, the
            // directory's faults were found by `createPartial`.
            try database.run("VACUUM INTO ?", partial)
            try Self.publish(partial, as: destination)
        }
    }

    /// Creates an empty file beside `destination` under a name no other backup has (a random
    /// suffix, created exclusively), readable by its owner alone; returns its path.
    private static func createPartial(for destination: String) throws -> String {
        while true {
            let partial = "\(destination).partial-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
            let file = Glibc.open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            let openError = errno
            if file >= 0 {
                close(file)
                return partial
            }
            guard openError == EEXIST else {
                let directory = directory(of: destination)
                let reason =
                    openError == EROFS
                    ? "a read-only file system"
                    : access(directory, F_OK) != 0
                        ? "no such directory"
                        : access(directory, W_OK) != 0
                            ? "the directory is not writable by this user" : String(cString: strerror(openError))
                throw StoreError(
                    code: 0, message: "cannot write the backup to \(destination): \(reason)",
                    hint: "choose a path in an existing directory this user can write")
            }
        }
    }

    /// Gives the finished copy at `partial` the name `destination`, never over a file there:
    /// a hard link where the file system has them, else a rename once the name is checked free
    /// (which a file made there in the instant between would not survive). Then syncs the
    /// directory, without which the new name is not durable.
    private static func publish(_ partial: String, as destination: String) throws {
        if link(partial, destination) != 0 {
            let linkError = errno
            var failure = linkError
            if [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK].contains(linkError) {
                failure = access(destination, F_OK) == 0 ? EEXIST : rename(partial, destination) == 0 ? 0 : errno
            }
            if failure != 0 {
                throw StoreError(
                    code: 0,
                    message: "cannot write the backup to \(destination): "
                        + (failure == EEXIST ? "it exists now" : String(cString: strerror(failure))),
                    hint: failure == EEXIST ? "choose a new file name" : nil)
            }
        }
        let directory = Glibc.open(directory(of: destination), O_RDONLY | O_DIRECTORY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
