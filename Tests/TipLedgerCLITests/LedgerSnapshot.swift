// SPDX-License-Identifier: GPL-3.0-or-later

/// What a ledger file holds, read with the `sqlite3` shell and without wall-clock columns
/// (`recorded_ms`, `finished_ms`, `received_ms`, `at_ms`) or row ids, so two ledgers that
/// recorded the same inputs compare equal however the work was split up.
struct LedgerSnapshot: Equatable, Sendable {
    /// One line per transaction, ordered by environment and transaction id.
    let transactions: [String]
    /// One line per stored signed payload, ordered.
    let evidence: [String]
    /// One line per event, ordered (a multiset: equal events may repeat).
    let events: [String]
    /// Evidence rows per kind.
    let evidenceByKind: [String: Int]
    /// Events per kind.
    let eventsByKind: [String: Int]
    /// Rows of the smaller tables.
    let notifications: Int
    let consumptionRequests: Int
    let headers: Int
    /// Transactions whose (environment, transaction id) appear more than once.
    let duplicateTransactions: Int

    static func read(_ database: String, in directory: String) async throws -> LedgerSnapshot {
        func rows(_ sql: String) async throws -> [String] {
            try await SQLiteShell.rows(database, sql, in: directory)
        }
        func counts(_ sql: String) async throws -> [String: Int] {
            var counts: [String: Int] = [:]
            for row in try await rows(sql) {
                let parts = row.split(separator: "|")
                counts[String(parts[0])] = Int(parts[1])
            }
            return counts
        }
        func count(_ table: String) async throws -> Int {
            Int(try await SQLiteShell.value(database, "SELECT count(*) FROM \(table)", in: directory)) ?? -1
        }
        return LedgerSnapshot(
            transactions: try await rows(
                """
                SELECT environment, transaction_id, original_transaction_id, app_transaction_id, account, bundle_id,
                    product_id, product_type, quantity, price_milli, currency, storefront, storefront_id, ownership,
                    purchase_date_ms, signed_date_ms, revocation_date_ms, revocation_reason, revocation_type,
                    revocation_percentage, revoked, finished_ms IS NOT NULL, state, gross_milli, refunded_milli,
                    revoked_milli
                FROM transactions ORDER BY environment, transaction_id
                """),
            evidence: try await rows(
                """
                SELECT hex(evidence.sha256), kind, environment, bundle_id, signed_date_ms, transaction_id,
                    notification_uuid, hex(jws_headers.sha256)
                FROM evidence JOIN jws_headers ON jws_headers.id = evidence.header_id ORDER BY 1
                """),
            events: try await rows(
                """
                SELECT environment, transaction_id, kind, source, currency, gross_delta_milli, refunded_delta_milli,
                    revoked_delta_milli, detail
                FROM events ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
                """),
            evidenceByKind: try await counts("SELECT kind, count(*) FROM evidence GROUP BY kind"),
            eventsByKind: try await counts("SELECT kind, count(*) FROM events GROUP BY kind"),
            notifications: try await count("notifications"),
            consumptionRequests: try await count("consumption_requests"),
            headers: try await count("jws_headers"),
            duplicateTransactions: Int(
                try await SQLiteShell.value(
                    database,
                    """
                    SELECT count(*) FROM (SELECT 1 FROM transactions GROUP BY environment, transaction_id
                    HAVING count(*) > 1)
                    """, in: directory)) ?? -1)
    }
}
