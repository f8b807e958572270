// SPDX-License-Identifier: GPL-3.0-or-later

/// Amounts in milliunits shown as decimal currency amounts, exactly (no floating point).
enum Money {
    /// The amount as `currency` is written: whole yen, cents for most others, with the third
    /// decimal of a milliunit when the amount has one (a prorated refund).
    static func decimal(_ milli: Int64, currency: String?) -> String {
        decimal(milli, decimals: decimals(for: [milli], currency: currency))
    }

    /// The amounts, all with as many decimals as the most precise of them needs, so that a row of
    /// them reads alike: `159.000` beside `52.999` yen.
    static func decimals(_ amounts: [Int64], currency: String?) -> [String] {
        let decimals = decimals(for: amounts, currency: currency)
        return amounts.map { decimal($0, decimals: decimals) }
    }

    private static func decimals(for amounts: [Int64], currency: String?) -> Int {
        amounts.reduce(CurrencyUnit.decimals(of: currency)) { decimals, milli in
            max(decimals, milli % 1000 == 0 ? 0 : milli % 10 == 0 ? 2 : 3)
        }
    }

    /// `milli` with `decimals` (0 to 3) digits after the point, which must hold it exactly:
    /// `9990` → `9.99` with 2, `9995` → `9.995` with 3, `-1500` → `-1.50` with 2.
    static func decimal(_ milli: Int64, decimals: Int) -> String {
        let sign = milli < 0 ? "-" : ""
        let whole = milli.magnitude / 1000
        guard decimals > 0 else { return "\(sign)\(whole)" }
        let fraction = String(milli.magnitude % 1000)
        let digits = String(repeating: "0", count: 3 - fraction.count) + fraction
        return "\(sign)\(whole).\(digits.prefix(decimals))"
    }
}
