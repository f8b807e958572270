// SPDX-License-Identifier: GPL-3.0-or-later

/// A report with what a page of charts shows beside it, all read in one transaction, so every
/// figure counts the same tips. Aggregated in SQL: its size depends on the periods, products,
/// storefronts and currencies, never on the number of transactions (but for `report` grouped
/// by account or day, which holds at most `rowLimit` rows).
public struct ReportOverview: Sendable {
    /// The report for the query's grouping, at most `rowLimit` rows of it.
    public let report: Report
    /// Whether the report has more rows than `report.rows`.
    public let reportIsCut: Bool
    /// Totals per environment and currency.
    public let totals: [ReportRow]
    /// The first and last purchase dates (milliseconds since 1970); nil without transactions.
    public let firstPurchase: Int64?
    public let lastPurchase: Int64?
    /// The length of `series`' periods, chosen from the span of purchase dates.
    public let period: ReportPeriod
    /// Totals per environment, currency, period and product.
    public let series: [PeriodRow]
    /// Totals per environment, product and currency.
    public let products: [ReportRow]
    /// Totals per environment, storefront and currency.
    public let storefronts: [ReportRow]
    /// Accounts per number of tips, per environment.
    public let tipCounts: [TipCountRow]
    /// The accounts with the highest net in each environment and currency, highest first.
    public let topSupporters: [SupporterRow]
}
