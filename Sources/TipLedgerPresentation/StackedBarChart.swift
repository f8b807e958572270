// SPDX-License-Identifier: GPL-3.0-or-later

/// A column chart in SVG: one slot per period, its positive segments stacked up from zero and its
/// negative ones down, a value axis with labelled ticks, and a text alternative (`<title>` and
/// `<desc>`, `role="img"`). It draws what it is given: the caller aggregates.
struct StackedBarChart {
    /// One part of a column.
    struct Segment {
        /// Milliunits: up from zero when positive, down when negative; a zero is not drawn.
        let value: Int64
        /// The style sheet's class of its colour.
        let style: String
        /// What a reader hovering it sees.
        let title: String
    }

    /// One period.
    struct Slot {
        /// The period's first day, `YYYY-MM-DD`.
        let key: String
        /// The label under the column, e.g. `5 Jan`.
        let label: String
        /// The period's year, shown below the first label and below each label of a new year;
        /// nil when the label says it.
        let year: String?
        let segments: [Segment]
    }

    /// Unique on the page: the text alternative's ids are made from it.
    let id: String
    let title: String
    /// A sentence of what the chart shows, for those who cannot see it.
    let summary: String
    /// The value axis' name, e.g. `net, USD`.
    let axisTitle: String
    let slots: [Slot]
    let scale: AxisScale
    /// A tick's label, e.g. `1,500` or `0.50`.
    let tickLabel: (Int64) -> String

    static let width = 720.0
    static let height = 300.0
    private static let left = 76.0
    private static let right = 8.0
    private static let top = 14.0
    private static let bottom = 46.0
    /// Labels under the columns at most: more would overlap.
    private static let mostLabels = 12

    init(
        id: String, title: String, summary: String, axisTitle: String, slots: [Slot], minorUnit: Int64,
        tickLabel: @escaping (Int64) -> String
    ) {
        self.id = id
        self.title = title
        self.summary = summary
        self.axisTitle = axisTitle
        self.slots = slots
        self.tickLabel = tickLabel
        let highest = slots.map { $0.segments.filter { $0.value > 0 }.reduce(0) { $0 + $1.value } }.max() ?? 0
        let lowest = slots.map { $0.segments.filter { $0.value < 0 }.reduce(0) { $0 + $1.value } }.min() ?? 0
        scale = AxisScale(minimum: lowest, maximum: highest, minorUnit: minorUnit)
    }

    func write(to markup: inout Markup) {
        let plotBottom = Self.height - Self.bottom
        let plotRight = Self.width - Self.right
        markup.element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart columns"),
                ("viewBox", "0 0 \(Self.format(Self.width)) \(Self.format(Self.height))"), ("role", "img"),
                ("aria-labelledby", "\(id)-title \(id)-desc"),
            ]
        ) { svg in
            svg.element("title", [("id", "\(id)-title")], text: title)
            svg.element("desc", [("id", "\(id)-desc")], text: summary)
            svg.element("g", [("class", "axis")]) { axis in
                for tick in scale.ticks {
                    let y = Self.format(scale.position(tick, bottom: plotBottom, top: Self.top))
                    axis.empty(
                        "line",
                        [
                            ("class", tick == 0 ? "zero" : "grid"), ("x1", Self.format(Self.left)), ("y1", y),
                            ("x2", Self.format(plotRight)), ("y2", y),
                        ])
                    axis.element(
                        "text", [("class", "tick"), ("x", Self.format(Self.left - 6)), ("y", y), ("dy", "0.32em")],
                        text: tickLabel(tick))
                }
                let middle = Self.format((Self.top + plotBottom) / 2)
                axis.element(
                    "text",
                    [
                        ("class", "axis-title"), ("x", "14"), ("y", middle),
                        ("transform", "rotate(-90 14 \(middle))"),
                    ], text: axisTitle)
            }
            writeColumns(to: &svg, plotBottom: plotBottom, plotRight: plotRight)
        }
    }

    private func writeColumns(to svg: inout Markup, plotBottom: Double, plotRight: Double) {
        let pitch = (plotRight - Self.left) / Double(max(slots.count, 1))
        let barWidth = min(pitch * 0.72, 56)
        let zero = scale.position(0, bottom: plotBottom, top: Self.top)
        let every = (slots.count + Self.mostLabels - 1) / Self.mostLabels
        var labelledYear: String? = nil
        for (index, slot) in slots.enumerated() {
            let center = Self.left + pitch * (Double(index) + 0.5)
            let x = Self.format(center - barWidth / 2)
            let drawn = slot.segments.filter { $0.value != 0 }
            if !drawn.isEmpty {
                svg.element("g", [("class", "bar"), ("data-period", slot.key)]) { bar in
                    var above = zero
                    var below = zero
                    for segment in drawn {
                        let height = abs(
                            scale.position(segment.value, bottom: plotBottom, top: Self.top) - zero)
                        let y: Double
                        if segment.value > 0 {
                            above -= height
                            y = above
                        } else {
                            y = below
                            below += height
                        }
                        bar.element(
                            "rect",
                            [
                                ("class", "seg \(segment.style)"), ("x", x), ("y", Self.format(y)),
                                ("width", Self.format(barWidth)), ("height", Self.format(height)),
                                ("data-milli", String(segment.value)),
                            ]
                        ) { $0.element("title", text: segment.title) }
                    }
                }
            }
            guard index % every == 0 else { continue }
            let labelX = Self.format(center)
            svg.element(
                "text", [("class", "label"), ("x", labelX), ("y", Self.format(plotBottom + 16))], text: slot.label)
            if let year = slot.year, year != labelledYear {
                svg.element(
                    "text", [("class", "label year"), ("x", labelX), ("y", Self.format(plotBottom + 32))], text: year)
                labelledYear = year
            }
        }
    }

    /// A coordinate to a tenth of a unit, without a trailing `.0`: the page stays small.
    static func format(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
