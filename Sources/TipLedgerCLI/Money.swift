// SPDX-License-Identifier: GPL-3.0-or-later

/// Amounts in milliunits shown as decimal currency amounts, exactly (no floating point).
enum Money {
    /// ISO 4217 currencies without a minor unit, shown as whole numbers.
    static let zeroDecimalCurrencies: Set<String> = ["JPY", "KRW", "CLP", "ISK", "VND", "UGX", "PYG", "XAF", "XOF"]

    /// The amount as `currency` is usually written: whole yen, cents for most others.
    static func decimal(_ milli: Int64, currency: String?) -> String {
        guard let currency, zeroDecimalCurrencies.contains(currency), milli % 1000 == 0 else { return decimal(milli) }
        return String(milli / 1000)
    }

    /// `9990` → `9.99`, `9995` → `9.995`, `120000` → `120.00`, `-1500` → `-1.50`.
    static func decimal(_ milli: Int64) -> String {
        let negative = milli < 0
        let magnitude = milli.magnitude
        let whole = magnitude / 1000
        let fraction = magnitude % 1000
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        if digits.hasSuffix("0") { digits.removeLast() }
        return (negative ? "-" : "") + "\(whole).\(digits)"
    }
}
