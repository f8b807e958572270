// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerStore

/// Apple's commission as a rate (0.15 = 15 %), for the proceeds a report estimates. It counts
/// in hundred-millionths (eight decimals): finer ones are rounded.
public struct CommissionRate: Sendable, Equatable {
    /// The rate as given, from 0 up to (not including) 1.
    let value: Double

    /// Hundred-millionths in a whole.
    static let scale: Int64 = 100_000_000

    init(_ value: Double) {
        self.value = value
    }

    /// A commission rate: `0.15` or `15%`, from 0 up to (not including) 100 %.
    public init(parsing text: String) throws(ReportQuery.ParameterError) {
        var number = text
        var scale = 1.0
        if number.hasSuffix("%") {
            number.removeLast()
            scale = 100
        }
        // Below 100 % once counted to the eight decimals proceeds use (`estimatedProceedsMilli`).
        guard let value = Double(number), value.isFinite, value >= 0,
            Self.units(value / scale) < Double(Self.scale)
        else {
            throw ReportQuery.ParameterError(
                parameter: "commission", expected: "a rate such as 0.15 or 15%, below 100%", given: text)
        }
        self.init(value / scale)
    }

    /// `rate` in hundred-millionths, to the nearest.
    private static func units(_ rate: Double) -> Double {
        (rate * Double(scale)).rounded()
    }

    /// The rate to the eight decimals it counts to, so that 33.3% prints 0.333, not the binary
    /// fraction's 0.33299999999999996.
    var counted: Double { Self.units(value) / Double(Self.scale) }

    /// Net after Apple's commission at this rate, rounded to the nearest minor unit of the
    /// currency (a cent, a yen), halves away from zero. An estimate: Apple's own rounding and
    /// taxes differ.
    ///
    /// Computed in integers, so a half is a half: in binary fractions 0.35 × (1 − 0.3) falls
    /// just short of 0.245 and would round down.
    public func estimatedProceedsMilli(of row: ReportRow) -> Int64 {
        let unit = CurrencyUnit.minorUnitMilli(of: row.currency)
        let scale = Self.scale
        let kept = scale - Int64(Self.units(value))
        // net × kept may not fit 64 bits; the quotient, at most net / unit, does.
        let divisor = scale * unit
        let (quotient, remainder) = divisor.dividingFullWidth(row.netMilli.multipliedFullWidth(by: kept))
        let halfOrMore = remainder.magnitude * 2 >= divisor.magnitude
        return (quotient + (halfOrMore ? (remainder < 0 ? -1 : 1) : 0)) * unit
    }

    /// The rate as a percentage the way it was most likely written, in plain digits: 0.07 is
    /// "7%" (not the 7.000000000000001 that multiplying gives), 0.145 is "14.5%", to a
    /// millionth of a percent at most.
    var percent: String {
        let millionths = Int64((value * 100 * 1_000_000).rounded())
        guard millionths > 0 || value <= 0 else { return "less than 0.000001%" }
        let whole = millionths / 1_000_000
        var fraction = String(millionths % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole)%" : "\(whole).\(fraction)%"
    }
}
