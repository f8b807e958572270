// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerPresentation
@testable import TipLedgerStore

/// The parts the report page is drawn with: escaping, the value axis, the periods.
@Suite struct ChartPartsTests {
    /// U+FFFE, U+FDD0 and U+1FFFF, which a string literal may not hold.
    static let noncharacters = String(
        String.UnicodeScalarView([0xFFFE, 0xFDD0, 0x1FFFF].compactMap(Unicode.Scalar.init)))

    /// The five markup characters as references; what XML does not allow as U+FFFD, so a name
    /// from a payload or a catalog can neither break the markup nor make it ill-formed.
    @Test(
        arguments: [
            (#"<script>alert("x")</script>"#, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"),
            ("Tom & Jerry's", "Tom &amp; Jerry&#39;s"), ("\u{0}x\u{1B}[31m\r", "\u{FFFD}x\u{FFFD}[31m\u{FFFD}"),
            ("tab\tand\nline", "tab\tand\nline"), ("\u{7F}\u{85}\u{9F}", "\u{FFFD}\u{FFFD}\u{FFFD}"),
            (noncharacters, "\u{FFFD}\u{FFFD}\u{FFFD}"), ("小さなチップ 💜", "小さなチップ 💜"),
        ] as [(String, String)])
    func textIsEscapedForHTMLAndXMLAlike(_ text: String, _ escaped: String) {
        #expect(Markup.escaped(text) == escaped)
    }

    /// Ticks 1, 2 or 5 times a power of ten apart, never finer than a minor unit; a refund
    /// smaller than a step takes no whole step below zero.
    @Test(arguments: [
        (Int64(0), Int64(77_940), Int64(10), [Int64(0), 20_000, 40_000, 60_000, 80_000]),
        (0, 1_600_000, 1000, [0, 500_000, 1_000_000, 1_500_000, 2_000_000]),
        (0, 10, 10, [0, 10]), (0, 0, 10, [0, 10]), (0, 0, 1000, [0, 1000]),
        (-990, 77_940, 10, [0, 20_000, 40_000, 60_000, 80_000]),
        (-45_000, 50_000, 10, [-60_000, -40_000, -20_000, 0, 20_000, 40_000, 60_000]),
        (-9990, 0, 10, [-10_000, -8000, -6000, -4000, -2000, 0]), (0, 7, 1, [0, 2, 4, 6, 8]),
    ])
    func theAxisHasRoundTicks(_ minimum: Int64, _ maximum: Int64, _ minorUnit: Int64, _ ticks: [Int64]) {
        let scale = AxisScale(minimum: minimum, maximum: maximum, minorUnit: minorUnit)

        #expect(scale.ticks == ticks)
        #expect(scale.lower <= min(minimum, 0) && scale.upper >= max(maximum, 0) && scale.lower < scale.upper)
        #expect(scale.step % minorUnit == 0)
    }

    @Test func aRefundSmallerThanAStepEndsTheAxis() {
        let scale = AxisScale(minimum: -990, maximum: 77_940, minorUnit: 10)

        #expect(scale.lower == -990)
        #expect(scale.position(-990, bottom: 100, top: 0) == 100)
        #expect(scale.position(80_000, bottom: 100, top: 0) == 0)
    }

    /// Every period from the first to the last, those without tips too; weeks start on Monday.
    @Test(arguments: [
        (ReportPeriod.day, "2025-12-30", "2026-01-02", ["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"]),
        (.week, "2025-12-29", "2026-01-19", ["2025-12-29", "2026-01-05", "2026-01-12", "2026-01-19"]),
        (.month, "2025-11-01", "2026-02-01", ["2025-11-01", "2025-12-01", "2026-01-01", "2026-02-01"]),
        (.year, "2024-01-01", "2026-01-01", ["2024-01-01", "2025-01-01", "2026-01-01"]),
        (.day, "2028-02-28", "2028-03-01", ["2028-02-28", "2028-02-29", "2028-03-01"]),
    ])
    func periodsFillTheSpan(_ period: ReportPeriod, _ first: String, _ last: String, _ periods: [String]) {
        #expect(PeriodCalendar(period: period).periods(from: first, to: last, having: [first, last]) == periods)
    }

    /// A chart's summary names its busiest period as a sentence would: on a day, in a week, a
    /// month or a year.
    @Test(arguments: [
        (ReportPeriod.day, "on 17 Mar 2026"), (.week, "in the week of 17 Mar 2026"), (.month, "in Mar 2026"),
        (.year, "in 2026"),
    ])
    func aPeriodIsPlacedInASentenceWithItsPreposition(period: ReportPeriod, placed: String) {
        #expect(PeriodCalendar(period: period).placed("2026-03-17") == placed)
    }

    /// A span of centuries (dates edited by hand) is drawn as the periods that have tips only.
    @Test func aSpanOfCenturiesKeepsThePeriodsWithTips() {
        let starts = ["1970-01-01", "2026-01-01", "2400-01-01"]

        #expect(PeriodCalendar(period: .year).periods(from: "1970-01-01", to: "2400-01-01", having: starts) == starts)
    }

    @Test(arguments: [
        (ReportPeriod.day, "2026-01-05", "5 Jan", "2026" as String?, "5 Jan 2026"),
        (.week, "2026-01-05", "5 Jan", "2026", "week of 5 Jan 2026"),
        (.month, "2026-03-01", "Mar", "2026", "Mar 2026"), (.year, "2026-01-01", "2026", nil, "2026"),
    ])
    func periodsAreNamedForPeople(
        _ period: ReportPeriod, _ start: String, _ label: String, _ year: String?, _ name: String
    ) {
        let calendar = PeriodCalendar(period: period)

        #expect(calendar.label(start).label == label)
        #expect(calendar.label(start).year == year)
        #expect(calendar.name(start) == name)
    }

    @Test(arguments: [
        (Int64(123_456_780), "USD", "123,456.78"), (1_600_000, "JPY", "1,600"), (-1_234_500, "EUR", "-1,234.50"),
        (999_000, "USD", "999.00"), (0, "JPY", "0"),
    ])
    func pageAmountsAreGroupedInThousands(_ milli: Int64, _ currency: String, _ text: String) {
        #expect(Money.grouped(milli, currency: currency) == text)
    }

    /// A tier's label fits left of its bar: a product id keeps its end, where products differ;
    /// a name keeps its start; a wide character counts two columns.
    @Test(arguments: [
        ("Small Tip", "Small Tip"),
        ("com.example.tipjar.coffee", "…mple.tipjar.coffee"),
        ("art.nightthought.tip.small", "…tthought.tip.small"),
        ("A very generous tip indeed", "A very generous ti…"),
        ("とても大きなチップです", "とても大きなチップ…"),
    ])
    func aTierLabelFitsBesideItsBar(_ label: String, _ shown: String) {
        #expect(HorizontalBarChart.shortened(label) == shown)
    }
}
