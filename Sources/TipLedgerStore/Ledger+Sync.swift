// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Ledger {
    /// Records `items` as `verify` does (`BatchRecorder.record`: every item checked before it
    /// writes, a rejected item failing alone) and saves `cursor`, when given, in the same
    /// transaction, so that a page of Apple's history and the cursor after it are committed
    /// together or not at all.
    ///
    /// New transactions are finished when `finish` is true. Returns one result per item, in
    /// order; throws, having written nothing, when the transaction as a whole fails.
    public func record(_ items: [VerifiedPayload], finish: Bool, saving cursor: SyncCursor?) throws
        -> [Result<RecordResult, VerificationError>]
    {
        let now = clock.now().wholeMilliseconds
        return try write { database in
            try database.writeTransaction {
                let results = try RecordWriter(database: database, now: now).recordEach(items, finish: finish)
                if let cursor { try Self.save(cursor, in: database, now: now) }
                return results
            }
        }
    }

    /// Saves `cursor` alone (a walk begun, or ended, with no page to record).
    public func save(_ cursor: SyncCursor) throws {
        let now = clock.now().wholeMilliseconds
        try write { database in
            try database.writeTransaction { try Self.save(cursor, in: database, now: now) } as Void
        }
    }

    /// The cursor of a walk, or a walk not begun when the ledger has none.
    public func syncCursor(_ environment: AppStoreEnvironment, _ walk: SyncCursor.Walk, scope: String = "") throws
        -> SyncCursor
    {
        try withReader { database in
            try database.queryOne(
                """
                SELECT running, window_start_ms, window_end_ms, only_failures, cursor, pages, swept_until_ms,
                    completed_ms
                FROM sync_cursors WHERE environment = ? AND walk = ? AND scope = ?
                """, environment.rawValue, walk.rawValue, scope
            ) { row in
                var cursor = SyncCursor(environment: environment, walk: walk, scope: scope)
                cursor.running = row.int64(0) == 1
                cursor.windowStart = row.optionalInt64(1).map(AppleDate.init(wholeMilliseconds:))
                cursor.windowEnd = row.optionalInt64(2).map(AppleDate.init(wholeMilliseconds:))
                cursor.onlyFailures = row.int64(3) == 1
                cursor.cursor = row.text(4)
                cursor.pages = Int(row.int64(5))
                cursor.sweptUntil = row.optionalInt64(6).map(AppleDate.init(wholeMilliseconds:))
                cursor.completed = row.optionalInt64(7).map(AppleDate.init(wholeMilliseconds:))
                return cursor
            } ?? SyncCursor(environment: environment, walk: walk, scope: scope)
        }
    }

    /// Saves `cursor`, except that the time up to which notifications were swept only moves
    /// forward: a sweep that began from older progress (`serve` and `sync` sweeping at once)
    /// would otherwise move it back, and the next sweep would ask for notifications again.
    private static func save(_ cursor: SyncCursor, in database: Database, now: Int64) throws {
        try database.run(
            """
            INSERT INTO sync_cursors (environment, walk, scope, running, window_start_ms, window_end_ms,
                only_failures, cursor, pages, swept_until_ms, completed_ms, updated_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            ON CONFLICT (environment, walk, scope) DO UPDATE SET running = ?4, window_start_ms = ?5,
                window_end_ms = ?6, only_failures = ?7, cursor = ?8, pages = ?9,
                swept_until_ms = max(coalesce(?10, swept_until_ms), coalesce(swept_until_ms, ?10)),
                completed_ms = ?11, updated_ms = ?12
            """, cursor.environment.rawValue, cursor.walk.rawValue, cursor.scope, cursor.running,
            cursor.windowStart?.wholeMilliseconds, cursor.windowEnd?.wholeMilliseconds, cursor.onlyFailures,
            cursor.cursor, cursor.pages, cursor.sweptUntil?.wholeMilliseconds, cursor.completed?.wholeMilliseconds,
            now)
    }
}
