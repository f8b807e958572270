// SPDX-License-Identifier: GPL-3.0-or-later

/// How many decimals a currency's amounts are written with (its ISO 4217 minor unit).
public enum CurrencyUnit {
    /// Currencies written without decimals.
    static let wholeUnitCurrencies: Set<String> = ["JPY", "KRW", "CLP", "ISK", "VND", "UGX", "PYG", "XAF", "XOF"]
    /// Currencies written with three decimals.
    static let thousandthCurrencies: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// 0 for yen and the like, 3 for dinars and rials of three decimals, 2 for the rest (and
    /// for an amount without a currency).
    public static func decimals(of currency: String?) -> Int {
        guard let currency else { return 2 }
        if wholeUnitCurrencies.contains(currency) { return 0 }
        return thousandthCurrencies.contains(currency) ? 3 : 2
    }

    /// Milliunits in one minor unit of `currency`: 1000 for yen, 10 for cents, 1 for fils.
    public static func minorUnitMilli(of currency: String?) -> Int64 {
        [1000, 100, 10, 1][decimals(of: currency)]
    }
}
