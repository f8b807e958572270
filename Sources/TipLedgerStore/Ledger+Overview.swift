// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension Ledger {
    /// The report of `query` and the aggregates a page of charts draws beside it (`ReportOverview`):
    /// totals per currency, per period and product, per product and per storefront, accounts by
    /// number of tips, and the `supporters` accounts of highest net per environment and
    /// currency. Every figure is an SQL aggregate, so a ledger of millions of transactions is
    /// never loaded; the report's own rows are cut at `rowLimit` (grouped by account, it has a
    /// row per account). The totals per currency and per product are the per-period figures
    /// added up: each aggregate is a pass over the table.
    public func overview(_ query: ReportQuery, now: Int64, rowLimit: Int, supporters: Int) throws -> ReportOverview {
        let (filter, values) = Self.reportFilter(query)
        // One read transaction, so every figure counts the same tips.
        return try withReader { database in
            try database.readTransaction {
                let rows = try Self.reportRows(in: database, query, grouping: query.grouping, limit: rowLimit + 1)
                let requests = try ConsumptionRequestTracker(database: database, now: now).stillOpen(
                    environments: query.environments)
                let span = try database.query(
                    "SELECT min(purchase_date_ms), max(purchase_date_ms) FROM transactions WHERE \(filter)", values
                ) { ($0.optionalInt64(0), $0.optionalInt64(1)) }.first
                let first = span?.0
                let last = span?.1
                let period =
                    first.flatMap { first in last.map { ReportPeriod.fitting(first: first, last: $0) } } ?? .day
                let series = try Self.series(in: database, filter: filter, values, period: period)
                return ReportOverview(
                    report: Report(rows: Array(rows.prefix(rowLimit)), openConsumptionRequests: requests),
                    reportIsCut: rows.count > rowLimit,
                    totals: Self.summed(series, byProduct: false),
                    firstPurchase: first, lastPurchase: last, period: period, series: series,
                    products: Self.summed(series, byProduct: true),
                    storefronts: try Self.reportRows(in: database, query, grouping: .storefront),
                    tipCounts: try Self.tipCounts(in: database, filter: filter, values),
                    topSupporters: try Self.topSupporters(in: database, filter: filter, values, count: supporters))
            }
        }
    }

    /// Totals per environment, currency, period and product.
    private static func series(
        in database: Database, filter: String, _ values: [any SQLBindable], period: ReportPeriod
    ) throws -> [PeriodRow] {
        // `startExpression` is one of four fixed expressions, never user input.
        let start = period.startExpression
        return try database.query(
            """
            SELECT environment, \(start), product_id, currency, count(*), sum(quantity), sum(gross_milli),
                sum(refunded_milli), sum(revoked_milli)
            FROM transactions WHERE \(filter)
            GROUP BY environment, currency, \(start), product_id ORDER BY environment, currency, \(start), product_id
            """, values
        ) { row in
            PeriodRow(
                start: row.text(1),
                totals: ReportRow(
                    environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production, group: row.text(2),
                    currency: row.text(3), transactions: row.int64(4), units: row.int64(5), grossMilli: row.int64(6),
                    refundedMilli: row.int64(7), revokedMilli: row.int64(8)))
        }
    }

    /// `series` added up over its periods: per environment and currency, or per environment,
    /// product and currency; the rows `reportRows` gives for `.currency` or `.product`, in its
    /// order (SQLite's: text by its bytes, NULL first), without another pass over the table.
    static func summed(_ series: [PeriodRow], byProduct: Bool) -> [ReportRow] {
        struct Key: Hashable {
            let environment: AppStoreEnvironment
            let group: String?
            let currency: String?
        }
        var sums: [Key: ReportRow] = [:]
        for row in series {
            let totals = row.totals
            let key = Key(
                environment: totals.environment, group: byProduct ? totals.group : nil, currency: totals.currency)
            let sum = sums[key]
            sums[key] = ReportRow(
                environment: key.environment, group: key.group, currency: key.currency,
                transactions: (sum?.transactions ?? 0) + totals.transactions, units: (sum?.units ?? 0) + totals.units,
                grossMilli: (sum?.grossMilli ?? 0) + totals.grossMilli,
                refundedMilli: (sum?.refundedMilli ?? 0) + totals.refundedMilli,
                revokedMilli: (sum?.revokedMilli ?? 0) + totals.revokedMilli)
        }
        /// SQLite's order of two texts, NULL first; nil when they are equal.
        func precedes(_ a: String?, _ b: String?) -> Bool? {
            guard a != b else { return nil }
            guard let a else { return true }
            guard let b else { return false }
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
        return sums.values.sorted { a, b in
            precedes(a.environment.rawValue, b.environment.rawValue) ?? precedes(a.group, b.group)
                ?? precedes(a.currency, b.currency) ?? false
        }
    }

    /// Accounts per number of tips, per environment.
    private static func tipCounts(in database: Database, filter: String, _ values: [any SQLBindable]) throws
        -> [TipCountRow]
    {
        try database.query(
            """
            SELECT environment, tips, count(*) FROM (
                SELECT environment, count(*) AS tips FROM transactions
                WHERE account IS NOT NULL AND \(filter) GROUP BY environment, account
            ) GROUP BY environment, tips ORDER BY environment, tips
            """, values
        ) { row in
            TipCountRow(
                environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production, tips: row.int64(1),
                accounts: row.int64(2))
        }
    }

    /// The `count` accounts of highest net in each environment and currency, highest first (ties
    /// by more tips, then by account, so the list is the same every time).
    private static func topSupporters(
        in database: Database, filter: String, _ values: [any SQLBindable], count: Int
    ) throws -> [SupporterRow] {
        try database.query(
            """
            SELECT environment, account, currency, tips, net FROM (
                SELECT environment, account, currency, count(*) AS tips,
                    sum(gross_milli - refunded_milli - revoked_milli) AS net,
                    row_number() OVER (
                        PARTITION BY environment, currency
                        ORDER BY sum(gross_milli - refunded_milli - revoked_milli) DESC, count(*) DESC, account
                    ) AS rank
                FROM transactions WHERE account IS NOT NULL AND \(filter) GROUP BY environment, account, currency
            ) WHERE rank <= ? ORDER BY environment, currency, rank
            """, values + [Int64(count)]
        ) { row in
            SupporterRow(
                environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production,
                account: row.text(1) ?? "", currency: row.text(2), transactions: row.int64(3), netMilli: row.int64(4))
        }
    }
}
