// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// The periods of a report over time, in UTC: every period from the first to the last, tips or
/// none, so a gap shows as a gap, and how each is named on a chart.
struct PeriodCalendar {
    let period: ReportPeriod

    /// Periods drawn at most: a ledger whose dates span centuries (edited by hand) gets only
    /// the periods that have tips.
    static let mostPeriods = 240

    private static let dayMilliseconds: Int64 = 86_400_000
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The first days (`YYYY-MM-DD`) of every period from `first`'s to `last`'s, both periods'
    /// first days as `PeriodRow.start` gives them; just `starts` when there would be more than
    /// `mostPeriods`.
    func periods(from first: String, to last: String, having starts: [String]) -> [String] {
        var periods = [first]
        while let current = periods.last, current < last, periods.count <= Self.mostPeriods {
            guard let next = following(current) else { break }
            periods.append(next)
        }
        return periods.count > Self.mostPeriods ? starts : periods
    }

    /// The first day of the period after the one starting on `start`.
    private func following(_ start: String) -> String? {
        guard let (year, month, _) = Self.parts(start) else { return nil }
        switch period {
        case .day, .week:
            guard let date = AppleDate.parse(start) else { return nil }
            let days: Int64 = period == .day ? 1 : 7
            return String(
                AppleDate(wholeMilliseconds: date.wholeMilliseconds + days * Self.dayMilliseconds)
                    .description.prefix(10))
        case .month:
            return month == 12 ? Self.day(year + 1, 1) : Self.day(year, month + 1)
        case .year:
            return Self.day(year + 1, 1)
        }
    }

    /// The label under a period's column and its year, unless the label says it: `5 Jan` and
    /// `2026` by day and week, `Jan` and `2026` by month, `2026` alone by year.
    func label(_ start: String) -> (label: String, year: String?) {
        guard let (year, month, day) = Self.parts(start) else { return (start, nil) }
        switch period {
        case .day, .week: return ("\(day) \(Self.months[month - 1])", String(year))
        case .month: return (Self.months[month - 1], String(year))
        case .year: return (String(year), nil)
        }
    }

    /// The period in words: `5 Jan 2026`, `week of 5 Jan 2026`, `Jan 2026`, `2026`.
    /// The period starting on `start` as a sentence places it: "on 17 Mar 2026", "in the week of
    /// 2 Mar 2026", "in Mar 2026", "in 2026".
    func placed(_ start: String) -> String {
        switch period {
        case .day: "on " + name(start)
        case .week: "in the " + name(start)
        case .month, .year: "in " + name(start)
        }
    }

    func name(_ start: String) -> String {
        guard let (year, month, day) = Self.parts(start) else { return start }
        switch period {
        case .day: return "\(day) \(Self.months[month - 1]) \(year)"
        case .week: return "week of \(day) \(Self.months[month - 1]) \(year)"
        case .month: return "\(Self.months[month - 1]) \(year)"
        case .year: return String(year)
        }
    }

    /// Year, month and day of `YYYY-MM-DD`.
    private static func parts(_ text: String) -> (Int, Int, Int)? {
        let fields = text.split(separator: "-").compactMap { Int($0) }
        guard fields.count == 3, (1...12).contains(fields[1]) else { return nil }
        return (fields[0], fields[1], fields[2])
    }

    private static func day(_ year: Int, _ month: Int) -> String {
        let digits = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return "\(paddedYear)-\(month < 10 ? "0" : "")\(month)-01"
    }
}
