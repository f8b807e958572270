// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

extension Ledger {
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
    ///
    /// `logBound`, in bytes, keeps the log about that size for a writer that never stops (the
    /// HTTP service): the log is checkpointed every half of it at most and restarted once a
    /// checkpoint copied more than half of it, whatever the ledger's size. Without it, the log
    /// between two checkpoints grows with the ledger, up to 256 MiB, which suits a bulk load
    /// (`Checkpointer`).
    ///
    /// `pages` sets the page size of a ledger this creates; an existing one keeps its own.
    public static func open(
        path: String, clock: WallClock = .system, busyTimeout: Duration = .seconds(30), reading: Bool = false,
        creating: Bool = true, replicated: Bool = false, logBound: Int? = nil, pages: NewLedgerPages = .forBatches,
        upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> Ledger {
        try open(
            path: path, clock: clock, busyTimeout: busyTimeout, checkpointFrames: nil, restartFrames: nil,
            reading: reading, creating: creating, replicated: replicated, logBound: logBound, pages: pages,
            upgrading: upgrading)
    }

    /// `open`, checkpointing every `checkpointFrames` frames of log and restarting a log longer
    /// than `restartFrames` (tests use small numbers); nil for the defaults
    /// (`Checkpointer.frames(pageSize:)`).
    static func open(
        path: String, clock: WallClock, busyTimeout: Duration, checkpointFrames: Int?, restartFrames: Int64?,
        reading: Bool = false, creating: Bool = true, replicated: Bool = false, logBound: Int? = nil,
        pages: NewLedgerPages = .forBatches, upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> Ledger {
        let milliseconds = Int32(clamping: Int64((busyTimeout / .milliseconds(1)).rounded(.up)))
        if !reading { try refuseUnwritable(path) }
        let file = reading && path != ":memory:" ? resolved(path) : nil
        let access = try file.map { try Self.readingAccess($0, named: path) } ?? .write
        let snapshot = access == .snapshot ? file.map { SnapshotGuard(file: $0, path: path) } : nil
        let database = try Database(path: path, busyTimeoutMilliseconds: milliseconds, access: access, pages: pages)
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
        // The writer does not checkpoint as it commits; the checkpointer does, once the log
        // has grown enough.
        database.watchLog()
        let pageSize = Int(try database.pragmaInteger("page_size"))
        let frames = Checkpointer.frames(pageSize: pageSize)
        let half = logBound.map { max(1, $0 / 2 / max(pageSize, 512)) }
        let checkpointer = Checkpointer(
            LockedDatabase(
                try Database(path: path, busyTimeoutMilliseconds: milliseconds, cacheMebibytes: 1, access: access)),
            checkpointFrames: checkpointFrames ?? min(frames.checkpoint, half ?? .max), minimumFrames: frames.minimum,
            restartFrames: restartFrames ?? min(frames.restart, half.map(Int64.init) ?? .max))
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
    static func refuseUnwritable(_ path: String) throws(StoreError) {
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

    /// Applies pending migrations to the ledger at `path`, creating it with `pages` when
    /// missing; returns the schema versions before and after. `upgrading` is told them first
    /// when an existing ledger is to be migrated.
    @discardableResult
    public static func migrate(
        path: String, pages: NewLedgerPages = .forBatches, upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> (from: Int, to: Int) {
        try migrate(path: path, migrations: Migration.all, pages: pages, upgrading: upgrading)
    }

    /// `migrate` with `migrations` rather than the embedded ones.
    @discardableResult
    static func migrate(
        path: String, migrations: [Migration], pages: NewLedgerPages = .forBatches,
        upgrading: (_ from: Int, _ to: Int) -> Void = { _, _ in }
    ) throws -> (from: Int, to: Int) {
        try refuseUnwritable(path)
        let database = try Database(path: path, pages: pages)
        let (from, to) = try Migrator.migrate(database, migrations: migrations, upgrading: upgrading)
        return (from, to)
    }
}
