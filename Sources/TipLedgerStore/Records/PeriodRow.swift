// SPDX-License-Identifier: GPL-3.0-or-later

/// The tips of one product bought in one period, in one environment and currency.
public struct PeriodRow: Sendable, Equatable {
    /// The period's first day, `YYYY-MM-DD` (UTC); nil for transactions without a purchase date.
    public let start: String?
    /// The totals; the group is the product id.
    public let totals: ReportRow
}
