// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Ledger {
    private static let transactionColumns = """
        environment, transaction_id, original_transaction_id, app_transaction_id, account, product_id,
        purchase_date_ms, quantity, price_milli, currency, storefront, state, finished_ms, revocation_date_ms,
        revocation_reason, gross_milli - refunded_milli - revoked_milli
        """

    private static func transactionRecord(_ row: Statement) -> TransactionRecord {
        TransactionRecord(
            environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production,
            transactionId: row.text(1) ?? "", originalTransactionId: row.text(2), appTransactionId: row.text(3),
            account: row.text(4), productId: row.text(5) ?? "", purchaseDateMilliseconds: row.optionalInt64(6),
            quantity: row.int64(7), priceMilli: row.optionalInt64(8), currency: row.text(9), storefront: row.text(10),
            state: TransactionState(rawValue: row.text(11) ?? "") ?? .pending,
            finishedMilliseconds: row.optionalInt64(12),
            revocationDateMilliseconds: row.optionalInt64(13), revocationReason: row.optionalInt64(14),
            netMilli: row.int64(15))
    }

    /// `environment IN (?, ...)` and its values, for a query limited to `environments` (nil:
    /// every environment, no condition).
    static func environmentCondition(_ environments: [AppStoreEnvironment]?) -> (
        sql: String, values: [any SQLBindable]
    )? {
        guard let environments else { return nil }
        return (
            "environment IN (\(environments.map { _ in "?" }.joined(separator: ", ")))", environments.map(\.rawValue)
        )
    }

    /// The tips of the account with `appAccountToken` (a UUID, any case): by default those not
    /// refunded or revoked; all of them with `includeAll`. Totals cover all of them. Only those
    /// of `environments` when given.
    public func restore(account: String, includeAll: Bool, environments: [AppStoreEnvironment]? = nil) throws
        -> Restore
    {
        try restore(column: "account", value: account.lowercased(), includeAll: includeAll, environments: environments)
    }

    /// Like `restore(account:)`, for customers whose app sets no account token.
    public func restore(appTransactionId: String, includeAll: Bool, environments: [AppStoreEnvironment]? = nil)
        throws -> Restore
    {
        try restore(
            column: "app_transaction_id", value: appTransactionId, includeAll: includeAll, environments: environments)
    }

    /// The condition that finds the rows whose `column` (`account` or `app_transaction_id`) is
    /// the value bound twice, through the column's index. The index holds the value's last 8
    /// characters (migration 0002) after the part of the ledger the row is in, `id >> 16`
    /// (migration 0003), so the condition names the parts (`everyPart`), and SQLite searches
    /// the index once for each. The `+` keeps SQLite from putting the bound value in place of the
    /// column in `substr(column, -8)` (constant propagation), after which the index would no
    /// longer match.
    static func lookUp(_ column: String) -> String {
        "(id >> 16) IN (\(everyPart)) AND substr(\(column), -8) = substr(?, -8) AND +\(column) = ?"
    }

    /// The parts of the lookup indexes from the first transaction's to the last's: every one
    /// in between while they are at most `densePartSpan` apart (as ids are when SQLite assigns
    /// them), each found from the one before by a search of the ids otherwise (ids far apart,
    /// in a ledger edited by hand): a lookup searches at most 4097 parts, or only those that
    /// hold a transaction. The first and last ids are each found once per query (`min(id)` and
    /// `max(id)` alone, which SQLite reads at either end of the table; an expression over both
    /// would scan it); `(n << 16) | 65535`, the last id of part n, cannot overflow.
    static let everyPart = """
        WITH RECURSIVE part(n) AS (
            SELECT (SELECT min(id) FROM transactions) >> 16
            UNION ALL
            SELECT CASE
                WHEN ((SELECT max(id) FROM transactions) >> 16) - ((SELECT min(id) FROM transactions) >> 16)
                    <= \(densePartSpan) THEN n + 1
                ELSE (SELECT min(id) FROM transactions WHERE id > ((n << 16) | 65535)) >> 16
            END
            FROM part WHERE n < (SELECT max(id) FROM transactions) >> 16
        ) SELECT n FROM part
        """

    /// The widest span of parts searched one by one: 4096 parts hold 268 million ids.
    static let densePartSpan = 4096

    /// The condition that finds the transactions `restore` lists and totals, and its values.
    static func restoreCondition(column: String, value: String, environments: [AppStoreEnvironment]?) -> (
        sql: String, values: [any SQLBindable]
    ) {
        // `column` is one of two fixed names chosen above, never user input.
        var conditions = [Self.lookUp(column)]
        var values: [any SQLBindable] = [value, value]
        if let (sql, environmentValues) = Self.environmentCondition(environments) {
            // `+`: without it, SQLite would rather go through every transaction of the
            // environment, by the first column of the transaction key.
            conditions.append("+" + sql)
            values += environmentValues
        }
        return (conditions.joined(separator: " AND "), values)
    }

    /// The tips whose `column` holds `value`; `afterListing` runs between the list's query and
    /// the totals' (a test commits a write there, to show both see the same commits).
    func restore(
        column: String, value: String, includeAll: Bool, environments: [AppStoreEnvironment]?,
        afterListing: () throws -> Void = {}
    ) throws -> Restore {
        let (matching, values) = Self.restoreCondition(column: column, value: value, environments: environments)
        let listed = includeAll ? matching : matching + " AND state IN ('pending', 'finished')"
        // One read transaction, so the list and the totals see the same commits.
        return try withReader { database in
            try database.readTransaction {
                let transactions = try database.query(
                    "SELECT \(Self.transactionColumns) FROM transactions WHERE \(listed) "
                        + "ORDER BY purchase_date_ms, environment, transaction_id",
                    values, row: Self.transactionRecord)
                try afterListing()
                let totals = try database.query(
                    """
                    SELECT environment, currency, sum(gross_milli - refunded_milli - revoked_milli), count(*)
                    FROM transactions WHERE \(matching) GROUP BY environment, currency ORDER BY environment, currency
                    """, values
                ) { row in
                    (
                        NetTotal(
                            environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production,
                            currency: row.text(1), netMilli: row.int64(2)),
                        Int(row.int64(3))
                    )
                }
                let all = totals.reduce(0) { $0 + $1.1 }
                return Restore(transactions: transactions, totals: totals.map(\.0), unlisted: all - transactions.count)
            }
        }
    }

    /// Transactions verified but not finished (and not refunded or revoked), oldest first; only
    /// those of `environments` when given.
    public func pending(environments: [AppStoreEnvironment]? = nil) throws -> [TransactionRecord] {
        let environment = Self.environmentCondition(environments)
        return try withReader { database in
            try database.query(
                "SELECT \(Self.transactionColumns) FROM transactions WHERE finished_ms IS NULL AND state = 'pending' "
                    + (environment.map { "AND \($0.sql) " } ?? "")
                    + "ORDER BY purchase_date_ms, environment, transaction_id", environment?.values ?? [],
                row: Self.transactionRecord)
        }
    }

    /// Totals per environment, group and currency, as SQL aggregates over the transactions.
    public func report(_ query: ReportQuery, now: Int64) throws -> Report {
        // One read transaction, so the rows and the open requests see the same commits.
        try withReader { database in
            try database.readTransaction {
                Report(
                    rows: try Self.reportRows(in: database, query, grouping: query.grouping),
                    openConsumptionRequests: try ConsumptionRequestTracker(database: database, now: now).stillOpen(
                        environments: query.environments))
            }
        }
    }

    /// The condition that keeps the transactions `query` covers (its dates and environments)
    /// and its values; an empty condition is `1`.
    static func reportFilter(_ query: ReportQuery) -> (sql: String, values: [any SQLBindable]) {
        var conditions: [String] = []
        var values: [any SQLBindable] = []
        if let since = query.since {
            conditions.append("purchase_date_ms >= ?")
            values.append(since)
        }
        if let until = query.until {
            conditions.append("purchase_date_ms < ?")
            values.append(until)
        }
        if let environment = Self.environmentCondition(query.environments) {
            conditions.append(environment.sql)
            values += environment.values
        }
        return (conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), values)
    }

    /// The rows of a report of `query` grouped by `grouping`, in the order of the group; the
    /// first `limit` of them when given.
    static func reportRows(
        in database: Database, _ query: ReportQuery, grouping: ReportGrouping, limit: Int? = nil
    ) throws -> [ReportRow] {
        var (filter, values) = reportFilter(query)
        // Group expressions come from this fixed table, never from user input.
        let group: String? =
            switch grouping {
            case .product: "product_id"
            case .currency: nil
            case .storefront: "storefront"
            case .account: "account"
            case .day: "strftime('%Y-%m-%d', purchase_date_ms / 1000, 'unixepoch')"
            case .month: "strftime('%Y-%m', purchase_date_ms / 1000, 'unixepoch')"
            }
        let groupColumn = group ?? "NULL"
        let groupBy = group.map { "environment, \($0), currency" } ?? "environment, currency"
        var sql = """
            SELECT environment, \(groupColumn), currency, count(*), sum(quantity), sum(gross_milli),
                sum(refunded_milli), sum(revoked_milli)
            FROM transactions WHERE \(filter)
            GROUP BY \(groupBy) ORDER BY \(groupBy)
            """
        if let limit {
            sql += " LIMIT ?"
            values.append(Int64(limit))
        }
        return try database.query(sql, values) { row in
            ReportRow(
                environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production, group: row.text(1),
                currency: row.text(2), transactions: row.int64(3), units: row.int64(4), grossMilli: row.int64(5),
                refundedMilli: row.int64(6), revokedMilli: row.int64(7))
        }
    }
}
