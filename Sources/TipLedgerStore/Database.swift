// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSQLite

#if canImport(Glibc)
    internal import Glibc
#endif

/// One SQLite connection, configured the way the ledger needs it: WAL, `synchronous=FULL`,
/// foreign keys on, a busy timeout, defensive mode.
///
/// Not thread-safe: one thread at a time uses a connection (the ledger's mutex and reader pool
/// hand each out to one user, hence `@unchecked Sendable`). Prepared statements are cached per
/// SQL text; every value is bound, never spliced into SQL.
final class Database: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The path the connection was opened with.
    let path: String
    /// How long a statement waits for another connection's lock before failing with BUSY.
    let busyTimeoutMilliseconds: Int32
    /// What the connection may do to the file.
    let openedFor: Access
    private var statements: [StatementKey: Statement] = [:]

    /// How long a writer waits for another connection's write lock before failing with BUSY,
    /// unless the opener says otherwise.
    static let defaultBusyTimeoutMilliseconds: Int32 = 30_000

    /// What a connection may do to the file.
    enum Access {
        /// Create the file when missing, and set it up for the ledger: its page size, and
        /// write-ahead logging.
        case write
        /// Read the file as it is (a backup keeps its rollback journal); write only to migrate.
        case read
        /// Read the file as it is, never writing (`SQLITE_OPEN_READONLY`), through the -wal and
        /// -shm files a connection that writes keeps beside it.
        case readOnly
        /// Read a file no connection has open (no -wal file beside it), creating nothing beside
        /// it and taking no locks: SQLite's `immutable=1`. Files this user made beside a ledger
        /// it may not write would keep the ledger's owner from writing it.
        case snapshot

        /// Whether the connection may write the file (to migrate it, at least).
        var mayWrite: Bool { self == .write || self == .read }
    }

    /// Opens the database at `path` for `access` (`.write` creates it when missing); `:memory:`
    /// opens a private in-memory database. `cacheMebibytes` bounds this connection's page cache;
    /// `pages` sets the page size of a file this connection creates.
    init(
        path: String, busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds, cacheMebibytes: Int = 32,
        access openedFor: Access = .write, pages: NewLedgerPages = .forBatches
    ) throws(StoreError) {
        _ = Database.libraryConfigured
        // SQLite would open a device or a pipe and write its journal beside it.
        if let kind = Self.kindOtherThanFile(at: path) {
            throw StoreError(
                code: SQLITE_CANTOPEN, message: "\(path) is \(kind), not a ledger",
                hint: "pass --db with the ledger file's path")
        }
        var handle: OpaquePointer? = nil
        let mode =
            switch openedFor {
            case .write: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            case .read: SQLITE_OPEN_READWRITE
            case .readOnly: SQLITE_OPEN_READONLY
            case .snapshot: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            }
        let flags = mode | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let name = openedFor == .snapshot ? Self.immutableURI(path) : path
        let status = sqlite3_open_v2(name, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            if access(path, F_OK) == 0 && access(path, R_OK) != 0 {
                throw StoreError(
                    code: status, message: "this user may not read the ledger \(path)",
                    hint: "run tipledger as the ledger's owner, or let this user read it")
            }
            throw StoreError(
                code: status, message: "cannot open the ledger \(path): \(message)",
                hint: "check that the directory exists and is writable, or pass --db PATH")
        }
        self.handle = handle
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.openedFor = openedFor
        do {
            try configure(busyTimeoutMilliseconds: busyTimeoutMilliseconds, pages: pages)
            // The evidence and transaction indexes are keyed by hashes and ids, so inserts land
            // on random pages; SQLite's default 2 MiB cache turns that into a read system call
            // per insert once the ledger outgrows it. 32 MiB for the writer recorded a million
            // lines 9 % faster than 16 MiB, and `verify` still peaked under 90 MB.
            try execute("PRAGMA cache_size = -\(cacheMebibytes * 1024)")
        } catch {
            // Every property is set, so `deinit` runs and closes the connection: closing it
            // here as well had `deinit` write into the freed connection.
            throw explained(error)
        }
    }

    /// What `path` names when it is something other than a regular file (say, "a directory" or
    /// "a character device"); nil for a regular file, and for nothing at all.
    private static func kindOtherThanFile(at path: String) -> String? {
        var file = stat()
        guard stat(path, &file) == 0 else { return nil }
        switch file.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    /// `error`, met while opening the connection, said in plain words when the file is not a
    /// database, is damaged or cannot be written; any other error as it is.
    private func explained(_ error: StoreError) -> StoreError {
        switch error.code & 0xff {
        case SQLITE_NOTADB:
            return StoreError(
                code: error.code, message: "\(path) is not an SQLite database",
                hint: "pass --db with the ledger's path")
        case SQLITE_CORRUPT:
            return StoreError(
                code: error.code, message: "the ledger \(path) is damaged: \(error.message)",
                hint: StoreError.damageHint)
        case SQLITE_READONLY:
            // READWRITE opens "for reading and writing if possible, or reading only if the file
            // is write protected by the operating system" (https://sqlite.org/c3ref/open.html);
            // the write-ahead log also needs its -wal and -shm files created beside the ledger.
            let file = access(path, W_OK) != 0
            let directory = error.code == SQLITE_READONLY | 6 << 8  // SQLITE_READONLY_DIRECTORY, which does not import
            if openedFor == .readOnly && directory {
                return StoreError(
                    code: error.code,
                    message: "the directory of the ledger \(path) is read-only, and SQLite reads a ledger "
                        + "in write-ahead-log mode through a -shm file it creates there",
                    hint: "make the directory writable by this user, or read a copy of the ledger")
            }
            let message =
                switch (file, directory) {
                case (true, true): "the ledger \(path) and its directory are read-only"
                case (false, true): "the directory of the ledger \(path) is read-only"
                case (true, false): "the ledger \(path) is read-only"
                case (false, false): "the ledger \(path) or its -wal and -shm files are read-only"
                }
            return StoreError(
                code: error.code, message: message,
                hint: "make the ledger and its directory writable by this user "
                    + "(SQLite creates the -wal and -shm files beside the ledger)")
        default:
            return error
        }
    }

    /// `file:PATH?immutable=1`, with the characters a URI's path cannot hold as they are
    /// percent-encoded (https://sqlite.org/uri.html).
    private static func immutableURI(_ path: String) -> String {
        // One leading slash at most: "file://x" would name a host.
        let rooted = path.hasPrefix("/") ? "/" + path.drop { $0 == "/" } : path
        var uri = "file:"
        for character in rooted.unicodeScalars {
            switch character {
            case "%", "?", "#": uri += "%" + String(character.value, radix: 16, uppercase: true)
            default: uri.unicodeScalars.append(character)
            }
        }
        return uri + "?immutable=1"
    }

    /// Process-wide SQLite settings, applied once before the first connection opens.
    private static let libraryConfigured: Bool = tl_sqlite_config_memstatus(0) == SQLITE_OK

    deinit {
        // Finalize cached statements before closing, or close would leave the handle open.
        statements.removeAll()
        // The WAL hook points at this object, which is going away.
        sqlite3_wal_hook(handle, nil, nil)
        sqlite3_close_v2(handle)
    }

    private func configure(busyTimeoutMilliseconds: Int32, pages: NewLedgerPages) throws(StoreError) {
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        var ignored: Int32 = 0
        // Defensive mode refuses writes that could corrupt the file (writable_schema and the
        // like) even if an attacker got SQL in: https://sqlite.org/c3ref/c_dbconfig_defensive.html
        _ = tl_sqlite_db_config_int(handle, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored)
        try execute("PRAGMA foreign_keys = ON")
        if path != ":memory:" && openedFor == .write {
            // A file that already has tables keeps its own page size; WAL fixes it too.
            try execute("PRAGMA page_size = \(pages.bytes)")
            // journal_mode answers with the mode in effect; WAL persists in the file, so once a
            // ledger is set up nothing needs changing. Switching a new file takes an exclusive
            // lock, which SQLite reports as busy at once (without the busy handler) when another
            // connection is opening it too: wait and try again. A file that cannot use WAL (a
            // temporary database, a file system without shared memory) answers with its old mode.
            var mode = try queryText("PRAGMA journal_mode")
            var attempts = 0
            while mode != "wal" {
                do {
                    mode = try journalMode("WAL")
                    break
                } catch  where error.isTransient && attempts < 200 {
                    attempts += 1
                    usleep(10_000)
                }
            }
            guard mode == "wal" else {
                throw StoreError(
                    code: 0,
                    message: "the ledger \(path) cannot use write-ahead logging (journal mode is \(mode ?? "?"))",
                    hint: "keep the ledger on a local file system")
            }
        }
        try execute("PRAGMA synchronous = FULL")
    }

    /// Runs SQL without parameters or results (several statements allowed).
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>? = nil
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw StoreError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// The cached prepared statement for `sql`, reset and with no bindings.
    func statement(_ sql: String) throws(StoreError) -> Statement {
        let key = StatementKey(sql: sql)
        if let cached = statements[key] {
            cached.reset()
            return cached
        }
        let statement = try Statement(database: handle, sql: sql)
        statements[key] = statement
        return statement
    }

    /// Runs a statement that returns no rows.
    @discardableResult
    func run<each Value: SQLBindable>(_ sql: String, _ values: repeat each Value) throws(StoreError) -> Int {
        let statement = try statement(sql)
        try statement.bind(repeat each values)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The rows of a query, each read by `row`.
    func query<Row>(_ sql: String, _ values: [any SQLBindable], row: (Statement) throws(StoreError) -> Row)
        throws(StoreError) -> [Row]
    {
        let statement = try statement(sql)
        try statement.bind(values)
        var rows: [Row] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first row of a query, or nil.
    func queryOne<Row, each Value: SQLBindable>(
        _ sql: String, _ values: repeat each Value, row: (Statement) throws(StoreError) -> Row
    ) throws(StoreError) -> Row? {
        let statement = try statement(sql)
        try statement.bind(repeat each values)
        guard try statement.step() else { return nil }
        let result = try row(statement)
        statement.reset()
        return result
    }

    private func queryText(_ sql: String) throws(StoreError) -> String? {
        try queryOne(sql) { $0.text(0) } ?? nil
    }

    /// Sets the journal mode to `mode` and returns the mode in effect: the old one when SQLite
    /// could not change it.
    func journalMode(_ mode: String) throws(StoreError) -> String? {
        try queryText("PRAGMA journal_mode = \(mode)")
    }

    /// The value of an integer pragma such as `user_version`.
    func pragmaInteger(_ name: String) throws(StoreError) -> Int64 {
        try queryOne("PRAGMA \(name)") { $0.int64(0) } ?? 0
    }

    /// The rowid of the last inserted row.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows inserted, updated or deleted by statements that completed on this connection since
    /// it opened, triggers included.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Whether a transaction is open: false again once one ended, by COMMIT, by ROLLBACK or by
    /// SQLite itself after an error that undoes it all (https://sqlite.org/lang_transaction.html).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs `body` with the busy handler waiting at most `milliseconds`, then gives the
    /// connection its own timeout back.
    func withBusyTimeout<Result>(milliseconds: Int32, _ body: () throws -> Result) rethrows -> Result {
        sqlite3_busy_timeout(handle, milliseconds)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        return try body()
    }

    /// Write transactions this connection tried to begin (`beginWrite`), whether or not the
    /// write lock was free: a busy ledger must cost a writer one busy timeout, not one per try.
    private(set) var writesBegun = 0

    /// Begins a write transaction with `BEGIN IMMEDIATE`, which takes the write lock up front,
    /// so a busy database fails (after the busy timeout) before any work is done, never halfway.
    func beginWrite() throws(StoreError) {
        writesBegun += 1
        try execute("BEGIN IMMEDIATE")
    }

    /// Frames in the write-ahead log after this connection's last commit, once `watchLog` ran.
    private(set) var logFrames = 0

    /// Keeps `logFrames` current through SQLite's WAL hook. Installing a hook turns off SQLite's
    /// own automatic checkpoints on this connection: the ledger runs its own.
    func watchLog() {
        let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
            context, _, _, frames in
            if let context { Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().logFrames = Int(frames) }
            return SQLITE_OK
        }
        // Unretained: the hook lives exactly as long as the connection, which `self` owns.
        sqlite3_wal_hook(handle, hook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Row ids of `jws_headers` by the header's SHA-256 (`TokenEvidence.headerDigest`), for the
    /// few signing chains in use, so a stored header is not looked up again. It may hold ids of
    /// rows the open transaction wrote, so it is cleared whenever a transaction rolls back.
    var headerIds: [(digest: [UInt8], id: Int64)] = []
}
