// SPDX-License-Identifier: GPL-3.0-or-later
public import FoundationEssentials

/// A point in time as the App Store writes it: milliseconds since 1970-01-01T00:00:00Z, possibly
/// fractional (Xcode's StoreKit testing writes fractions such as `1697679936049.7297`).
public struct AppleDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970, exactly as decoded.
    public let milliseconds: Double

    public init(milliseconds: Double) {
        self.milliseconds = milliseconds
    }

    public init(wholeMilliseconds: Int64) {
        self.milliseconds = Double(wholeMilliseconds)
    }

    public init(_ date: Date) {
        self.milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
    }

    /// Whole milliseconds, rounded down; what the ledger stores.
    public var wholeMilliseconds: Int64 { Int64(milliseconds.rounded(.down)) }

    /// Whole seconds, rounded down; the resolution of certificate validity checks.
    package var wholeSeconds: Int64 { Int64((milliseconds / 1000).rounded(.down)) }

    /// The same instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: milliseconds / 1000) }

    public static func < (lhs: AppleDate, rhs: AppleDate) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// ISO 8601 in UTC with milliseconds, e.g. `2025-10-01T07:08:38.835Z`.
    public var description: String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses a command-line date: `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 timestamp with
    /// a zone (`2025-10-01T07:08:38Z`, `...T07:08:38.835+02:00`).
    public static func parse(_ text: String) -> AppleDate? {
        guard isCalendarText(text) else { return nil }
        // The date-only style also accepts a full timestamp and drops its time, so it is tried
        // only on a plain date (exactly `YYYY-MM-DD`).
        let styles =
            text.utf8.count == 10
            ? [Date.ISO8601FormatStyle().year().month().day()]
            : [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)]
        for style in styles {
            // The text names a whole millisecond (`isCalendarText` allows three digits at
            // most); Foundation's seconds since 2001, a binary fraction, may fall just short of
            // it, so it is rounded to the nearest rather than down.
            if let date = try? style.parse(text) {
                return AppleDate(wholeMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
            }
        }
        return nil
    }

    /// Whether `text` is `YYYY-MM-DD` naming a day that exists, alone or followed by
    /// `THH:MM:SS[.fff]` (up to three digits) and `Z` or `±HH:MM`, and nothing else.
    /// Foundation's ISO 8601 parser alone accepts trailing text (`2026-01-01junk`) and rolls
    /// `2026-02-30` over into March.
    private static func isCalendarText(_ text: String) -> Bool {
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
            // Milliseconds at most, the resolution of every date the App Store signs: a finer
            // fraction would be cut off unseen.
            index += 1
            let start = index
            while isDigit(index) { index += 1 }
            guard (1...3).contains(index - start) else { return false }
        }
        if isByte(index, "Z") { return index + 1 == bytes.count }
        guard isByte(index, "+") || isByte(index, "-"), bytes.count == index + 6, isByte(index + 3, ":"),
            let zoneHours = number((index + 1)..<(index + 3)), let zoneMinutes = number((index + 4)..<(index + 6))
        else { return false }
        return zoneHours < 24 && zoneMinutes < 60
    }
}
