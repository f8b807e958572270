// SPDX-License-Identifier: GPL-3.0-or-later

/// Brings a ledger's schema up to date: each pending migration runs in its own
/// `BEGIN IMMEDIATE` transaction together with its `user_version` bump, so a failed migration
/// leaves the previous schema exactly as it was. A new ledger gets all of them in one
/// transaction, so that another process opening it at that moment finds no schema or the
/// whole of it, never an older version it would take for a ledger to upgrade.
enum Migrator {
    /// SQLite `application_id` of a tipledger ledger ("TPLG"), so other databases are refused.
    static let applicationID: Int64 = 0x5450_4C47

    /// Applies what `migrations` has beyond the database's version; returns (before, after).
    /// `upgrading` is told the versions once, before the first migration this call applies to a
    /// ledger that already had a schema, which may take a while (a new file's take no time).
    ///
    /// Unless `creating`, a database with no schema at all (an empty SQLite file, or one whose
    /// interrupted first write SQLite rolled back) is refused rather than made a new ledger.
    @discardableResult
    static func migrate(
        _ database: Database, migrations: [Migration] = Migration.all, creating: Bool = true,
        upgrading: (Int, Int) -> Void = { _, _ in }
    ) throws -> (Int, Int) {
        let latest = migrations.last?.version ?? 0
        // Read together, so that another process creating the ledger at this moment is not seen
        // halfway (its tables without its version yet). Litestream's own tables do not count: it
        // adds them to any database it replicates, and may find a new ledger's file before
        // tipledger wrote its schema into it.
        let (application, current, tables) = try database.readTransaction {
            (
                try database.pragmaInteger("application_id"), Int(try database.pragmaInteger("user_version")),
                try database.queryOne(
                    "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE '\\_litestream\\_%' ESCAPE '\\'"
                ) { $0.int64(0) } ?? 0
            )
        }
        // Another application's id, or tables without our id and a schema version: some other
        // program's database (most leave application_id at 0). Never add a ledger to it.
        let otherApplication = application != 0 && application != applicationID
        let unmarkedTables = application == 0 && current == 0 && tables > 0
        if otherApplication || unmarkedTables {
            throw StoreError(
                code: 0, message: "\(database.path) is an SQLite database of another application",
                hint: "pass --db with a new file name or an existing tipledger ledger")
        }
        if !creating && application == 0 && current == 0 && tables == 0 {
            throw StoreError(
                code: 0, message: "\(database.path) is an SQLite database with no ledger in it",
                hint:
                    "pass --db with a ledger (is it a backup that did not finish?), or record into it with 'tipledger verify'"
            )
        }
        if current > latest {
            throw StoreError(
                code: 0,
                message:
                    "the ledger \(database.path) has schema version \(current), newer than this tipledger's \(latest)",
                hint: "upgrade tipledger; an older binary must not write a newer ledger")
        }
        let pending = migrations.filter { $0.version > current }
        guard !pending.isEmpty else { return (current, current) }
        guard database.openedFor.mayWrite else {
            throw StoreError(
                code: 0,
                message: "the ledger \(database.path) has schema version \(current), older than this "
                    + "tipledger's \(latest), and cannot be upgraded: this user may not write it",
                hint: "upgrade it once with 'tipledger migrate' as a user who can write the ledger and its directory")
        }
        // A migration may rebuild a table that others reference (create the new table, copy,
        // drop the old one, rename the new one), which SQLite allows only with foreign keys off
        // (https://sqlite.org/lang_altertable.html, "other kinds of table schema changes");
        // the keys are checked before each migration commits instead. The pragma does nothing
        // inside a transaction, so it is set around them, and on again however they end.
        try database.execute("PRAGMA foreign_keys = OFF")
        // A ledger that had no schema when this call looked is being created, here or by
        // another process: nothing to announce.
        var announced = current == 0
        let steps = current == 0 ? [pending] : pending.map { [$0] }
        let applied = Result<Void, any Error> {
            for step in steps {
                try apply(step, to: database) { from in
                    if !announced { upgrading(from, latest) }
                    announced = true
                }
            }
        }
        try database.execute("PRAGMA foreign_keys = ON")
        try applied.get()
        return (current, max(current, latest))
    }

    /// Runs `migrations` in one transaction with their version bumps, but those another
    /// connection applied meanwhile; `willRun` is told the version they start from, just before
    /// the first runs.
    private static func apply(_ migrations: [Migration], to database: Database, willRun: (Int) -> Void) throws {
        var before = migrations[0].version - 1
        var running: Migration? = nil
        do {
            try database.writeTransaction {
                // Another connection may have applied them while this one waited for the write
                // lock (two processes opening a new ledger at once): read the version again.
                // Only then is an upgrade announced: a version read before taking the lock may
                // be that of a ledger another process is creating at this moment.
                before = Int(try database.pragmaInteger("user_version"))
                let due = migrations.filter { $0.version > before }
                guard !due.isEmpty else { return }
                willRun(before)
                for migration in due {
                    running = migration
                    try database.execute(migration.sql)
                    if let table = try database.queryOne("PRAGMA foreign_key_check", row: { $0.text(0) }) {
                        throw StoreError(code: 0, message: "it leaves rows of \(table ?? "?") with broken references")
                    }
                    // PRAGMA takes no bound parameters; the version is an integer from this binary.
                    try database.execute("PRAGMA user_version = \(migration.version)")
                }
                try database.execute("PRAGMA application_id = \(applicationID)")
            }
        } catch let error as StoreError {
            // The migration's name says where; its text would only quote the file's opening
            // comment.
            let failed = running ?? migrations[0]
            throw StoreError(
                code: error.code, message: "migration \(failed.name) failed: \(error.message)",
                sql: error.sql == failed.sql ? nil : error.sql,
                hint: before == 0
                    ? "nothing was written: the new ledger has no schema yet"
                    : "the ledger was left at schema version \(before)")
        }
    }
}
