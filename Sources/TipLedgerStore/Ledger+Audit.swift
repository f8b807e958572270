// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Ledger {
    /// The ledger's tables, each checked on its own when the file is damaged, to name where.
    static let tables = ["jws_headers", "evidence", "transactions", "notifications", "consumption_requests", "events"]

    /// What SQLite's integrity check (`PRAGMA integrity_check`, at most 100 problems) finds wrong
    /// with the file; empty for a sound one. When it finds anything, each table is checked on its
    /// own too, so that every problem names the table it is in where one does.
    ///
    /// It reads every page of the file, as a backup does.
    /// See https://sqlite.org/pragma.html#pragma_integrity_check
    public func integrityProblems() throws -> [IntegrityProblem] {
        try withReader { database in
            let whole = try Self.integrityMessages(database, table: nil)
            guard !whole.isEmpty else { return [] }
            var problems: [IntegrityProblem] = []
            for table in Self.tables {
                // The names are this fixed list's, never the file's: PRAGMA arguments cannot be bound.
                problems += try Self.integrityMessages(database, table: table).map {
                    IntegrityProblem(table: table, message: $0)
                }
            }
            let named = Set(problems.map(\.message))
            return problems + whole.filter { !named.contains($0) }.map { IntegrityProblem(table: nil, message: $0) }
        }
    }

    /// The integrity check's messages for the file, or for one table and its indexes; empty when
    /// it answers "ok". A check that a damaged page stops (a table's first page, say) says so.
    private static func integrityMessages(_ database: Database, table: String?) throws(StoreError) -> [String] {
        let sql = table.map { "PRAGMA integrity_check(\($0))" } ?? "PRAGMA integrity_check"
        let rows: [String]
        do {
            rows = try database.query(sql, []) { $0.text(0) ?? "" }
        } catch  where error.fault == .damaged {
            return ["the check stopped: \(error.message)"]
        }
        // One row, or several, each of one or more lines; a heading line comes before the
        // problems of each database attached (only one here).
        let lines = rows.flatMap { $0.split(separator: "\n") }
        return lines.filter { $0 != "ok" && !$0.hasPrefix("*** in database ") }.map(String.init)
    }

    /// The rows that break the ledger's rules: every transaction's amounts are the sums of its
    /// events' changes (gross, refunded, revoked), no event changes the amounts of a transaction
    /// the ledger does not hold, and every transaction and notification has its evidence, the
    /// signed payload it was recorded from. (`reverify` checks that the evidence verifies.)
    ///
    /// One read transaction, so every query sees the same commits.
    public func brokenInvariants() throws -> InvariantCheck {
        try withReader { database in
            try database.readTransaction {
                let transactions = try database.queryOne("SELECT count(*) FROM transactions") { $0.int64(0) } ?? 0
                let notifications = try database.queryOne("SELECT count(*) FROM notifications") { $0.int64(0) } ?? 0
                let breaches =
                    try amountBreaches(database) + unheldTransactionBreaches(database)
                    + transactionEvidenceBreaches(database) + notificationEvidenceBreaches(database)
                return InvariantCheck(
                    transactions: Int(transactions), notifications: Int(notifications), breaches: breaches)
            }
        }
    }

    /// The sums of the events' changes, per transaction. Each transaction's events are found
    /// together by one sort of the table, rather than a search per transaction: no index leads
    /// from a transaction to its events.
    private static let eventSums = """
        WITH sums AS (
            SELECT environment, transaction_id, sum(gross_delta_milli) AS gross,
                sum(refunded_delta_milli) AS refunded, sum(revoked_delta_milli) AS revoked
            FROM events GROUP BY environment, transaction_id
        )
        """

    /// Transactions whose amounts are not the sums of their events'.
    private func amountBreaches(_ database: Database) throws -> [InvariantBreach] {
        try database.query(
            """
            \(Self.eventSums)
            SELECT t.environment, t.transaction_id, t.gross_milli, t.refunded_milli, t.revoked_milli,
                coalesce(s.gross, 0), coalesce(s.refunded, 0), coalesce(s.revoked, 0)
            FROM transactions AS t
                LEFT JOIN sums AS s ON s.environment = t.environment AND s.transaction_id = t.transaction_id
            WHERE t.gross_milli != coalesce(s.gross, 0) OR t.refunded_milli != coalesce(s.refunded, 0)
                OR t.revoked_milli != coalesce(s.revoked, 0)
            ORDER BY t.id
            """, []
        ) { row in
            InvariantBreach(
                kind: "transaction", environment: row.text(0) ?? "", transactionId: row.text(1), notificationUUID: nil,
                problem: "its amounts (gross \(row.int64(2)), refunded \(row.int64(3)), revoked \(row.int64(4)) "
                    + "milliunits) are not the sums of its events' (gross \(row.int64(5)), refunded \(row.int64(6)), "
                    + "revoked \(row.int64(7)))")
        }
    }

    /// Events that change the amounts of a transaction the ledger does not hold.
    private func unheldTransactionBreaches(_ database: Database) throws -> [InvariantBreach] {
        try database.query(
            """
            \(Self.eventSums)
            SELECT s.environment, s.transaction_id, s.gross, s.refunded, s.revoked FROM sums AS s
            WHERE (s.gross != 0 OR s.refunded != 0 OR s.revoked != 0) AND NOT EXISTS (
                SELECT 1 FROM transactions AS t WHERE t.environment = s.environment AND t.transaction_id = s.transaction_id
            )
            ORDER BY s.environment, s.transaction_id
            """, []
        ) { row in
            InvariantBreach(
                kind: "transaction", environment: row.text(0) ?? "", transactionId: row.text(1), notificationUUID: nil,
                problem: "its events change amounts (gross \(row.int64(2)), refunded \(row.int64(3)), revoked "
                    + "\(row.int64(4)) milliunits), but the ledger holds no such transaction")
        }
    }

    /// Transactions whose evidence is missing, or is not a signed transaction of theirs.
    private func transactionEvidenceBreaches(_ database: Database) throws -> [InvariantBreach] {
        try database.query(
            """
            SELECT t.environment, t.transaction_id, t.evidence_id, e.id IS NULL FROM transactions AS t
                LEFT JOIN evidence AS e ON e.id = t.evidence_id
            WHERE e.id IS NULL OR e.kind != 'transaction' OR e.environment != t.environment
                OR e.transaction_id IS NOT t.transaction_id
            ORDER BY t.id
            """, []
        ) { row in
            InvariantBreach(
                kind: "transaction", environment: row.text(0) ?? "", transactionId: row.text(1), notificationUUID: nil,
                problem: row.int64(3) == 1
                    ? "its evidence (evidence row \(row.int64(2))) is missing"
                    : "its evidence (evidence row \(row.int64(2))) is not a signed transaction of it")
        }
    }

    /// Notifications whose evidence is missing, or is not that notification's. A notification is
    /// keyed by its UUID lowercased, while its evidence keeps the UUID as the token spells it.
    private func notificationEvidenceBreaches(_ database: Database) throws -> [InvariantBreach] {
        try database.query(
            """
            SELECT n.environment, n.transaction_id, n.notification_uuid, n.evidence_id, e.id IS NULL
            FROM notifications AS n LEFT JOIN evidence AS e ON e.id = n.evidence_id
            WHERE e.id IS NULL OR e.kind != 'notification' OR lower(e.notification_uuid) IS NOT n.notification_uuid
            ORDER BY n.received_ms, n.notification_uuid
            """, []
        ) { row in
            InvariantBreach(
                kind: "notification", environment: row.text(0) ?? "", transactionId: row.text(1),
                notificationUUID: row.text(2),
                problem: row.int64(4) == 1
                    ? "its evidence (evidence row \(row.int64(3))) is missing"
                    : "its evidence (evidence row \(row.int64(3))) is not this notification")
        }
    }

    /// Re-verifies every stored token offline with `verifier` (each at its own signedDate) and
    /// returns those that no longer verify. `progress` is called with (done, total) now and then.
    public func reverify(with verifier: Verifier, progress: (Int, Int) -> Void = { _, _ in }) throws
        -> [ReverifyFailure]
    {
        let total = try withReader { try $0.queryOne("SELECT count(*) FROM evidence") { $0.int64(0) } ?? 0 }
        var failures: [ReverifyFailure] = []
        var lastId: Int64 = 0
        var done = 0
        while true {
            // Pages by id keep memory flat and the lock short, however large the ledger.
            let page = try withReader { database in
                try database.query(
                    """
                    SELECT evidence.id, kind, header || '.' || body, environment, transaction_id, notification_uuid,
                        header_id
                    FROM evidence LEFT JOIN jws_headers ON jws_headers.id = evidence.header_id
                    WHERE evidence.id > ? ORDER BY evidence.id LIMIT 500
                    """, [lastId]
                ) { row in
                    (
                        row.int64(0), row.text(1) ?? "", row.text(2), row.text(3) ?? "", row.text(4), row.text(5),
                        row.int64(6)
                    )
                }
            }
            guard let last = page.last else { break }
            lastId = last.0
            for (id, kind, token, environment, transactionId, uuid, headerId) in page {
                let expected: PayloadKind = kind == "notification" ? .notification : .transaction
                do throws(VerificationError) {
                    // A token whose header row is gone cannot be put together again, let alone verified.
                    guard let token else {
                        throw VerificationError(
                            .malformedJWS, "its header (jws_headers row \(headerId)) is missing from the ledger")
                    }
                    _ = try verifier.verifyPayload(token, as: expected)
                } catch {
                    failures.append(
                        ReverifyFailure(
                            evidenceId: id, kind: kind, environment: environment, transactionId: transactionId,
                            notificationUUID: uuid, error: error))
                }
            }
            done += page.count
            progress(done, Int(total))
        }
        return failures
    }
}
