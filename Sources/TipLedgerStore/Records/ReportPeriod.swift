// SPDX-License-Identifier: GPL-3.0-or-later

/// The length of the periods a report's tips are counted in over time: a few dozen periods
/// whatever the span, so a chart of them stays legible from a week of tips to years of them.
/// Weeks start on Monday (ISO 8601); every period is in UTC.
public enum ReportPeriod: String, Sendable, CaseIterable {
    case day, week, month, year

    private static let dayMilliseconds: Int64 = 86_400_000

    /// The period for purchases from `first` to `last` (milliseconds since 1970): days up to
    /// 45 days, weeks up to 40 weeks, months up to 8 years, years beyond.
    public static func fitting(first: Int64, last: Int64) -> ReportPeriod {
        let days = (last - first) / dayMilliseconds
        if days < 45 { return .day }
        if days < 40 * 7 { return .week }
        if days < 8 * 365 { return .month }
        return .year
    }

    /// The SQL expression of the first day of the period of a transaction's purchase date, as
    /// `YYYY-MM-DD`; NULL without a purchase date.
    var startExpression: String {
        let date = "purchase_date_ms / 1000, 'unixepoch'"
        return switch self {
        case .day: "date(\(date))"
        case .week: "date(\(date), '-6 days', 'weekday 1')"
        case .month: "date(\(date), 'start of month')"
        case .year: "date(\(date), 'start of year')"
        }
    }
}
