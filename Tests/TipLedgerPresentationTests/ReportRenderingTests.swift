// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerPresentation
@testable import TipLedgerStore

@Suite struct ReportRenderingTests {
    /// The commission rate as the user wrote it, without the noise of binary fractions.
    @Test(arguments: [
        ("0.07", "7%"), ("7%", "7%"), ("29%", "29%"), ("0.29", "29%"), ("14.5%", "14.5%"), ("0.145", "14.5%"),
        ("15%", "15%"), ("0", "0%"), ("0.3333", "33.33%"), ("12.25%", "12.25%"), ("0.00001%", "0.00001%"),
        ("0.0000000001", "less than 0.000001%"),
    ])
    func theCommissionPrintsAsWritten(_ given: String, _ printed: String) throws {
        #expect(try CommissionRate(parsing: given).percent == printed)
    }

    /// In JSON too, without the noise of binary fractions.
    @Test(arguments: [("33.3%", "0.333"), ("1.1%", "0.011"), ("0.15", "0.15"), ("12.25%", "0.1225")])
    func theCommissionRateInJSONIsTheRateWritten(_ given: String, _ printed: String) throws {
        let report = Report(rows: [], openConsumptionRequests: [])
        let json = ReportRendering(
            report: report, grouping: .currency, commission: try CommissionRate(parsing: given), catalog: nil
        ).json
        #expect(json.contains(#""commissionRate":\#(printed),"#), "\(json)")
    }
}

/// Amounts in text: exact, with the decimals their currency is written with.
@Suite struct MoneyTests {
    @Test(arguments: [
        (Int64(9990), "USD", "9.99"), (9995, "USD", "9.995"), (-1500, "USD", "-1.50"), (120_000, "EUR", "120.00"),
        (159_000, "JPY", "159"), (52_999, "JPY", "52.999"), (1500, "KWD", "1.500"), (1999, "KWD", "1.999"),
        (0, "JPY", "0"),
    ])
    func anAmountPrintsWithItsCurrencysDecimals(_ milli: Int64, _ currency: String, _ text: String) {
        #expect(Money.decimal(milli, currency: currency) == text)
    }

    @Test func anAmountWithoutACurrencyHasCents() {
        #expect(Money.decimal(120_000, currency: nil) == "120.00")
    }

    /// A row reads alike: a yen refund prorated to a thousandth gives the whole row three decimals.
    @Test func aRowOfAmountsSharesOnePrecision() {
        #expect(
            Money.decimals([159_000, 52_999, 0, 106_001], currency: "JPY") == ["159.000", "52.999", "0.000", "106.001"])
        #expect(Money.decimals([159_000, 0, 159_000], currency: "JPY") == ["159", "0", "159"])
        #expect(Money.decimals([5980, 0, 5083], currency: "USD") == ["5.980", "0.000", "5.083"])
    }

    /// Proceeds are rounded half up to the currency's minor unit: a yen, a cent, a fils.
    @Test(arguments: [
        ("JPY", Int64(106_001), Int64(90_000)), ("USD", 5980, 5080), ("KWD", 1999, 1699), ("USD", 1000, 850),
        ("USD", -5980, -5080), ("USD", -1010, -860),
    ])
    func proceedsRoundToTheCurrencysMinorUnit(_ currency: String, _ net: Int64, _ proceeds: Int64) {
        let row = ReportRow(
            environment: .sandbox, group: nil, currency: currency, transactions: 1, units: 1, grossMilli: net,
            refundedMilli: 0, revokedMilli: 0)
        #expect(CommissionRate(0.15).estimatedProceedsMilli(of: row) == proceeds)
    }

    /// Exact to the cent where binary fractions are not: 0.35 at 30 % is 0.245, which rounds
    /// to 0.25, and so on for every net up to 100.00 at rates written in percent.
    @Test(arguments: ["30%", "0.3", "15%", "17.5%", "33%"])
    func proceedsRoundHalvesUpExactly(_ given: String) throws {
        let rate = try CommissionRate(parsing: given)
        let keptTenths = 1000 - Int64((rate.value * 1000).rounded())  // the rate kept, in tenths of a percent
        for cents in Int64(0)...10_000 {
            let row = ReportRow(
                environment: .sandbox, group: nil, currency: "USD", transactions: 1, units: 1, grossMilli: cents * 10,
                refundedMilli: 0, revokedMilli: 0)
            // cents × kept / 1000, halves up, in integers.
            let expected = (cents * keptTenths * 2 + 1000) / 2000 * 10
            #expect(rate.estimatedProceedsMilli(of: row) == expected, "\(cents) cents at \(given)")
            if rate.estimatedProceedsMilli(of: row) != expected { break }
        }
    }
}
