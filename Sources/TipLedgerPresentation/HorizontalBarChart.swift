// SPDX-License-Identifier: GPL-3.0-or-later

/// A bar chart in SVG of counts (tips, accounts), one labelled bar per row with its count at its
/// end, and a text alternative (`<title>` and `<desc>`, `role="img"`). Counts, unlike amounts,
/// may be added across currencies.
struct HorizontalBarChart {
    struct Bar {
        let label: String
        let count: Int64
        /// What the count is written as at the bar's end, e.g. `12 tips`.
        let countLabel: String
        /// The style sheet's class of its colour.
        let style: String
        /// What a reader hovering it sees.
        let title: String
    }

    /// Unique on the page: the text alternative's ids are made from it.
    let id: String
    let title: String
    /// A sentence of what the chart shows, for those who cannot see it.
    let summary: String
    let bars: [Bar]

    /// Half a column chart's width: two of them fit side by side at the size their text was set for.
    private static let width = 460.0
    private static let labelWidth = 150.0
    /// Room after the longest bar for its count.
    private static let countWidth = 92.0
    private static let pitch = 26.0
    private static let barHeight = 18.0
    /// Label width, in columns of a Latin letter: a wide (CJK) character counts two. As many as
    /// fit left of the bars in the 12-pixel text of the style sheet.
    static let labelColumns = 18

    func write(to markup: inout Markup) {
        let height = Self.pitch * Double(bars.count) + 8
        let most = max(bars.map(\.count).max() ?? 0, 1)
        let span = Self.width - Self.labelWidth - Self.countWidth
        markup.element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart rows"),
                ("viewBox", "0 0 \(StackedBarChart.format(Self.width)) \(StackedBarChart.format(height))"),
                ("role", "img"), ("aria-labelledby", "\(id)-title \(id)-desc"),
            ]
        ) { svg in
            svg.element("title", [("id", "\(id)-title")], text: title)
            svg.element("desc", [("id", "\(id)-desc")], text: summary)
            for (index, bar) in bars.enumerated() {
                let top = 4 + Self.pitch * Double(index)
                let middle = StackedBarChart.format(top + Self.barHeight / 2)
                let length = span * Double(bar.count) / Double(most)
                svg.element("g", [("class", "row")]) { row in
                    row.element(
                        "text",
                        [
                            ("class", "name"), ("x", StackedBarChart.format(Self.labelWidth - 8)), ("y", middle),
                            ("dy", "0.32em"),
                        ], text: Self.shortened(bar.label))
                    row.element(
                        "rect",
                        [
                            ("class", "seg \(bar.style)"), ("x", StackedBarChart.format(Self.labelWidth)),
                            ("y", StackedBarChart.format(top)), ("width", StackedBarChart.format(length)),
                            ("height", StackedBarChart.format(Self.barHeight)), ("data-count", String(bar.count)),
                        ]
                    ) { $0.element("title", text: bar.title) }
                    row.element(
                        "text",
                        [
                            ("class", "count"), ("x", StackedBarChart.format(Self.labelWidth + length + 6)),
                            ("y", middle), ("dy", "0.32em"),
                        ], text: bar.countLabel)
                }
            }
        }
    }

    /// `label` cut to about `labelColumns` columns with an ellipsis; the whole of it is in the
    /// bar's title. An identifier without spaces (`com.example.tipjar.small`, a product without a
    /// catalog name) keeps its end, where products differ; other labels keep their start.
    static func shortened(_ label: String) -> String {
        let fromEnd = !label.contains(" ") && label.contains(".")
        var columns = 0
        var kept: [Character] = []
        for character in fromEnd ? Array(label.reversed()) : Array(label) {
            let wide = character.unicodeScalars.first.map { $0.value >= 0x1100 } ?? false
            columns += wide ? 2 : 1
            if columns > labelColumns {
                return fromEnd ? "…" + String(kept.reversed()) : String(kept) + "…"
            }
            kept.append(character)
        }
        return label
    }
}
