// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Short UTC timestamps for tables.
enum ISODate {
    /// `2025-10-01 07:08` for milliseconds since 1970.
    static func minutes(_ milliseconds: Int64) -> String {
        let text = AppleDate(wholeMilliseconds: milliseconds).description  // 2025-10-01T07:08:38.835Z
        return String(text.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }
}

extension String {
    func replacingOccurrences(of target: Character, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
