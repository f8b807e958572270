// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension ReportQuery {
    /// A report parameter given as text that does not parse; `parameter` is its bare name
    /// (`by`, `since`, `until`, `commission`), so callers can present it as `--by` or `?by=`.
    public struct ParameterError: Error, Sendable, Equatable {
        public let parameter: String
        /// What the parameter takes, e.g. "a date like 2025-10-01".
        public let expected: String
        public let given: String
    }

    /// A query from text parameters as the CLI and the HTTP service receive them. A plain date
    /// for `until` includes that whole day; `since` is inclusive, `until` exclusive.
    public init(
        by: String?, since: String?, until: String?, environments: [AppStoreEnvironment]?
    ) throws(ParameterError) {
        self.init()
        if let by {
            guard let grouping = ReportGrouping(rawValue: by) else {
                throw ParameterError(
                    parameter: "by",
                    expected: "one of \(ReportGrouping.allCases.map(\.rawValue).joined(separator: ", "))",
                    given: by)
            }
            self.grouping = grouping
        }
        self.since = try Self.date(since, parameter: "since", endOfDay: false)
        let sinceText = since
        self.until = try Self.date(until, parameter: "until", endOfDay: true)
        if let since = self.since, let until = self.until, since >= until {
            throw ParameterError(parameter: "since", expected: "a date before until", given: sinceText ?? "")
        }
        self.environments = environments
    }

    private static func date(_ text: String?, parameter: String, endOfDay: Bool) throws(ParameterError) -> Int64? {
        guard let text else { return nil }
        guard isCalendarText(text), let date = AppleDate.parse(text) else {
            throw ParameterError(
                parameter: parameter, expected: "a date like 2025-10-01 or 2025-10-01T07:00:00Z", given: text)
        }
        let isPlainDay = text.utf8.count == 10
        return date.wholeMilliseconds + (endOfDay && isPlainDay ? 86_400_000 : 0)
    }

    /// Whether `text` is `YYYY-MM-DD` naming a day that exists, alone or followed by
    /// `THH:MM:SS[.fraction]` and `Z` or `±HH:MM`, and nothing else. Foundation's ISO 8601 parser
    /// alone accepts trailing text (`2026-01-01junk`) and rolls `2026-02-30` over into March.
    static func isCalendarText(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func isDigit(_ index: Int) -> Bool { index < bytes.count && (48...57).contains(bytes[index]) }
        func number(_ range: Range<Int>) -> Int? {
            guard range.allSatisfy(isDigit) else { return nil }
            return range.reduce(0) { $0 * 10 + Int(bytes[$1] - 48) }
        }
        func isByte(_ index: Int, _ character: Unicode.Scalar) -> Bool {
            index < bytes.count && bytes[index] == UInt8(ascii: character)
        }
        guard bytes.count >= 10, isByte(4, "-"), isByte(7, "-"), let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10), (1...12).contains(month)
        else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        if bytes.count == 10 { return true }
        guard isByte(10, "T"), isByte(13, ":"), isByte(16, ":"), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), hour < 24, minute < 60, second < 60
        else { return false }
        var index = 19
        if isByte(index, ".") {
            index += 1
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        if isByte(index, "Z") { return index + 1 == bytes.count }
        guard isByte(index, "+") || isByte(index, "-"), bytes.count == index + 6, isByte(index + 3, ":"),
            let zoneHours = number((index + 1)..<(index + 3)), let zoneMinutes = number((index + 4)..<(index + 6))
        else { return false }
        return zoneHours < 24 && zoneMinutes < 60
    }

    /// A commission rate: `0.15` or `15%`, from 0 up to (not including) 100 %.
    public static func commissionRate(_ text: String) throws(ParameterError) -> Double {
        var number = text
        var scale = 1.0
        if number.hasSuffix("%") {
            number.removeLast()
            scale = 100
        }
        guard let value = Double(number), value.isFinite, value >= 0, value / scale < 1 else {
            throw ParameterError(
                parameter: "commission", expected: "a rate such as 0.15 or 15%, below 100%", given: text)
        }
        return value / scale
    }
}
