// SPDX-License-Identifier: GPL-3.0-or-later

extension Money {
    /// `decimal` with its whole part in groups of three digits: `12,345.60`, `1,600` yen, for
    /// a page read at a glance rather than a file read by a program.
    static func grouped(_ milli: Int64, currency: String?) -> String {
        grouped(decimal(milli, currency: currency))
    }

    /// `decimal(_:decimals:)` in groups of three digits.
    static func grouped(_ milli: Int64, decimals: Int) -> String {
        grouped(decimal(milli, decimals: decimals))
    }

    /// `decimals` in groups of three digits: a row's amounts with one precision.
    static func grouped(_ amounts: [Int64], currency: String?) -> [String] {
        decimals(amounts, currency: currency).map { grouped($0) }
    }

    /// A count in groups of three digits: `1,234,567`.
    static func grouped(count: Int64) -> String {
        grouped(String(count))
    }

    /// The digits before the point of a decimal numeral, in groups of three.
    private static func grouped(_ numeral: String) -> String {
        let sign = numeral.hasPrefix("-") ? "-" : ""
        let unsigned = numeral.dropFirst(sign.count)
        let whole = unsigned.prefix { $0 != "." }
        let rest = unsigned.dropFirst(whole.count)
        var groups: [Substring] = []
        var end = whole.endIndex
        while end > whole.startIndex {
            let start = whole.index(end, offsetBy: -3, limitedBy: whole.startIndex) ?? whole.startIndex
            groups.insert(whole[start..<end], at: 0)
            end = start
        }
        return sign + groups.joined(separator: ",") + rest
    }
}
