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
    public var wholeSeconds: Int64 { Int64((milliseconds / 1000).rounded(.down)) }

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
        // The date-only style also accepts a full timestamp and drops its time, so it is tried
        // only on a plain date (exactly `YYYY-MM-DD`).
        let styles =
            text.utf8.count == 10
            ? [Date.ISO8601FormatStyle().year().month().day()]
            : [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)]
        for style in styles {
            if let date = try? style.parse(text) { return AppleDate(date) }
        }
        return nil
    }
}
