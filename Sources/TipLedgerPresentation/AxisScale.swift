// SPDX-License-Identifier: GPL-3.0-or-later

/// A chart's value axis over amounts in milliunits: ticks a step of 1, 2 or 5 times a power of
/// ten apart, never finer than one minor unit of the currency (a cent, a yen), so that every tick
/// reads as an amount the currency has.
struct AxisScale: Equatable {
    /// The axis' bounds, `lower` ≤ 0 ≤ `upper`, `lower` < `upper`. `upper` is a multiple of
    /// `step`; so is `lower`, but when the values below zero (refunds) take less than a step:
    /// then `lower` is the least of them, and a dollar refunded beside a hundred dollars tipped
    /// takes a sliver, not a fifth of the chart.
    let lower: Int64
    let upper: Int64
    let step: Int64

    /// An axis holding `minimum` to `maximum` (zero is always on it) in about `ticks` steps.
    init(minimum: Int64, maximum: Int64, minorUnit: Int64, ticks: Int64 = 5) {
        let low = min(minimum, 0)
        let high = max(maximum, 0)
        let step = Self.niceStep(atLeast: max((high - low + ticks - 1) / ticks, 1), minorUnit: minorUnit)
        lower = -low < step && high > 0 ? low : Self.floor(low, step)
        let upper = Self.ceiling(high, step)
        self.upper = upper > lower ? upper : lower + step
        self.step = step
    }

    /// The multiples of the step from `lower` to `upper`.
    var ticks: [Int64] { Array(stride(from: Self.ceiling(lower, step), through: upper, by: Int(step))) }

    /// Where `value` falls between `bottom` (at `lower`) and `top` (at `upper`), in the chart's
    /// coordinates, whose y axis points down.
    func position(_ value: Int64, bottom: Double, top: Double) -> Double {
        bottom - Double(value - lower) / Double(upper - lower) * (bottom - top)
    }

    /// The smallest of 1, 2 and 5 times `minorUnit` times a power of ten that is at least `raw`.
    private static func niceStep(atLeast raw: Int64, minorUnit: Int64) -> Int64 {
        var power = max(minorUnit, 1)
        while true {
            for multiple: Int64 in [1, 2, 5] {
                let (candidate, overflow) = power.multipliedReportingOverflow(by: multiple)
                if overflow { return power }
                if candidate >= raw { return candidate }
            }
            let (next, overflow) = power.multipliedReportingOverflow(by: 10)
            if overflow { return power }
            power = next
        }
    }

    private static func floor(_ value: Int64, _ step: Int64) -> Int64 {
        value >= 0 ? value / step * step : -ceiling(-value, step)
    }

    private static func ceiling(_ value: Int64, _ step: Int64) -> Int64 {
        value <= 0 ? -floor(-value, step) : (value + step - 1) / step * step
    }
}
