// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

extension ReportPage {
    /// Bars a chart of products or storefronts draws at most; the rest share one bar.
    static let mostBars = 12

    // MARK: Net over time

    /// A chart per currency of net tips per period, stacked by product, with refunded and
    /// revoked amounts below zero; every chart of the environment spans the same periods.
    func writeSeries(_ environment: AppStoreEnvironment, to section: inout Markup) {
        let rows = overview.series.filter { $0.totals.environment == environment }
        let dated = rows.filter { $0.start != nil }
        let starts = Set(dated.compactMap(\.start)).sorted()
        guard let first = starts.first, let last = starts.last else { return }
        let calendar = PeriodCalendar(period: overview.period)
        let periods = calendar.periods(from: first, to: last, having: starts)
        let currencies = totals(environment).map(\.currency)
        section.element("h3", text: "Net tips per \(overview.period.rawValue)")
        for (index, currency) in currencies.enumerated() {
            let own = dated.filter { $0.totals.currency == currency }
            let chart = seriesChart(
                id: "\(environment.rawValue.lowercased())-series-\(index)", currency: currency, rows: own,
                periods: periods, calendar: calendar)
            section.element(
                "figure",
                [
                    ("class", "series"), ("data-currency", currency ?? ""), ("data-period", overview.period.rawValue),
                ]
            ) { figure in
                figure.element("figcaption", text: currency ?? "no currency")
                chart.write(to: &figure)
                let products = orderedProducts(in: own.map(\.totals))
                let refunds = own.contains { $0.totals.refundedMilli + $0.totals.revokedMilli > 0 }
                writeLegend(products: products, refunds: refunds, to: &figure)
                writeFigures(of: own, calendar: calendar, currency: currency, to: &figure)
            }
        }
        let undated = rows.filter { $0.start == nil }.reduce(0) { $0 + $1.totals.transactions }
        if undated > 0 {
            section.element(
                "p", [("class", "note")],
                text: "\(Self.counted(undated, "tip")) without a purchase date are counted above but not charted.")
        }
    }

    private func seriesChart(
        id: String, currency: String?, rows: [PeriodRow], periods: [String], calendar: PeriodCalendar
    ) -> StackedBarChart {
        let byPeriod = Dictionary(grouping: rows) { $0.start ?? "" }
        let code = currency ?? ""
        var slots: [StackedBarChart.Slot] = []
        var busiest: (String, Int64)? = nil
        for period in periods {
            let name = calendar.name(period)
            let totals = (byPeriod[period] ?? []).map(\.totals)
            var segments: [StackedBarChart.Segment] = []
            for (style, products) in productGroups(in: totals) {
                let net = products.reduce(0) { $0 + $1.netMilli }
                let tips = products.reduce(0) { $0 + $1.transactions }
                let label = products.count == 1 ? productLabel(products[0]) : "other products"
                segments.append(
                    StackedBarChart.Segment(
                        value: net, style: style,
                        title: "\(name) · \(label): \(Money.grouped(net, currency: currency)) \(code) net, "
                            + Self.counted(tips, "tip")))
            }
            let refunded = totals.reduce(0) { $0 + $1.refundedMilli }
            let revoked = totals.reduce(0) { $0 + $1.revokedMilli }
            if refunded + revoked > 0 {
                segments.append(
                    StackedBarChart.Segment(
                        value: -(refunded + revoked), style: ReportPageStyle.refundStyle,
                        title: "\(name) · \(Money.grouped(refunded, currency: currency)) \(code) refunded, "
                            + "\(Money.grouped(revoked, currency: currency)) \(code) revoked"))
            }
            let net = totals.reduce(0) { $0 + $1.netMilli }
            if !totals.isEmpty, net > busiest?.1 ?? Int64.min { busiest = (period, net) }
            let (label, year) = calendar.label(period)
            slots.append(StackedBarChart.Slot(key: period, label: label, year: year, segments: segments))
        }
        let withTips = Set(rows.compactMap(\.start)).count
        var summary =
            "Net tips in \(currency ?? "no currency") per \(overview.period.rawValue), stacked by product, from "
            + "\(calendar.name(periods.first ?? "")) to \(calendar.name(periods.last ?? "")): "
            + "\(Self.counted(Int64(withTips), overview.period.rawValue)) with tips"
        if let (start, net) = busiest {
            summary += "; the most, \(Money.grouped(net, currency: currency)), \(calendar.placed(start))"
        }
        let lost = rows.reduce(0) { $0 + $1.totals.refundedMilli + $1.totals.revokedMilli }
        summary +=
            lost > 0 ? "; \(Money.grouped(lost, currency: currency)) refunded or revoked, drawn below zero." : "."
        let minorUnit = CurrencyUnit.minorUnitMilli(of: currency)
        return StackedBarChart(
            id: id, title: "Net tips per \(overview.period.rawValue), \(currency ?? "no currency")", summary: summary,
            axisTitle: "net, \(currency ?? "no currency")", slots: slots, minorUnit: minorUnit
        ) { tick in
            // Whole units when the step allows, else the currency's own decimals.
            Money.grouped(tick, decimals: tick % 1000 == 0 ? 0 : CurrencyUnit.decimals(of: currency))
        }
    }

    /// The rows of each colour, in the order of the legend: a product per colour, but the last
    /// colour, shared by every less tipped product.
    private func productGroups(in rows: [ReportRow]) -> [(String, [ReportRow])] {
        let styles = ReportPageStyle.seriesStyles
        var grouped: [String: [ReportRow]] = [:]
        for row in rows { grouped[productStyles[row.group ?? ""] ?? styles[styles.count - 1], default: []].append(row) }
        return styles.compactMap { style in grouped[style].map { (style, $0) } }
    }

    /// The label of a row's product.
    private func productLabel(_ row: ReportRow) -> String {
        productLabels[row.group ?? ""] ?? row.group ?? "–"
    }

    /// The products of `rows`, the most tipped first.
    private func orderedProducts(in rows: [ReportRow]) -> [String] {
        let present = Set(rows.map { $0.group ?? "" })
        return rankedProducts.filter { present.contains($0) }
    }

    /// The key of each colour a chart of `products` uses, and of refunds when it draws some.
    private func writeLegend(products: [String], refunds: Bool, to figure: inout Markup) {
        let shared = ReportPageStyle.seriesStyles[ReportPageStyle.seriesStyles.count - 1]
        var entries: [(String, String)] = []
        var others = 0
        for product in products {
            let style = productStyles[product] ?? shared
            if style == shared {
                others += 1
            } else {
                entries.append((style, productLabels[product] ?? product))
            }
        }
        if others == 1, let last = products.last { entries.append((shared, productLabels[last] ?? last)) }
        if others > 1 { entries.append((shared, "\(others) other products")) }
        if refunds { entries.append((ReportPageStyle.refundStyle, "refunded and revoked")) }
        figure.element("ul", [("class", "legend")]) { legend in
            for (style, label) in entries {
                legend.element("li") { item in
                    item.element("span", [("class", "key \(style)")]) { _ in }
                    item.text(label)
                }
            }
        }
    }

    /// The chart's figures as a table, for those who would rather read them.
    private func writeFigures(
        of rows: [PeriodRow], calendar: PeriodCalendar, currency: String?, to figure: inout Markup
    ) {
        let byPeriod = Dictionary(grouping: rows) { $0.start ?? "" }
        figure.element("details") { details in
            details.element("summary", text: "The figures")
            details.element("table") { table in
                table.element("thead") { head in
                    head.element("tr") { row in
                        row.element("th", text: overview.period.rawValue)
                        for header in ["tips", "gross", "refunded", "revoked", "net"] {
                            row.element("th", [("class", "n")], text: header)
                        }
                    }
                }
                table.element("tbody") { body in
                    for period in byPeriod.keys.sorted() {
                        let totals = byPeriod[period, default: []].map(\.totals)
                        let tips = totals.reduce(0) { $0 + $1.transactions }
                        let amounts = [
                            totals.reduce(0) { $0 + $1.grossMilli }, totals.reduce(0) { $0 + $1.refundedMilli },
                            totals.reduce(0) { $0 + $1.revokedMilli }, totals.reduce(0) { $0 + $1.netMilli },
                        ]
                        body.element("tr") { row in
                            row.element("td", text: calendar.name(period))
                            row.element("td", [("class", "n")], text: Money.grouped(count: tips))
                            for text in Money.grouped(amounts, currency: currency) {
                                row.element("td", [("class", "n")], text: text)
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: Tiers and storefronts

    /// Tips per product and per storefront: counts, which may be added across currencies; each
    /// bar's title gives the net in each currency.
    func writeSplits(_ environment: AppStoreEnvironment, to section: inout Markup) {
        let products = overview.products.filter { $0.environment == environment }
        let storefronts = overview.storefronts.filter { $0.environment == environment }
        let prefix = environment.rawValue.lowercased()
        section.element("div", [("class", "pair")]) { pair in
            pair.element("figure", [("class", "products")]) { figure in
                figure.element("figcaption", text: "Tips per tier")
                let bars = countBars(products, naming: productLabel) { productStyles[$0.group ?? ""] ?? "s6" }
                HorizontalBarChart(
                    id: "\(prefix)-products", title: "Tips per product",
                    summary: barSummary(bars, of: "product"), bars: bars
                ).write(to: &figure)
            }
            pair.element("figure", [("class", "storefronts")]) { figure in
                figure.element("figcaption", text: "Tips per storefront")
                let bars = countBars(storefronts, naming: { $0.group ?? "no storefront" }) { _ in "s4" }
                HorizontalBarChart(
                    id: "\(prefix)-storefronts", title: "Tips per storefront",
                    summary: barSummary(bars, of: "storefront"), bars: bars
                ).write(to: &figure)
            }
        }
    }

    /// A bar per group of `rows` (rows per group and currency), the most tipped first, the
    /// groups beyond `mostBars` in one last bar.
    private func countBars(
        _ rows: [ReportRow], naming name: (ReportRow) -> String, style: (ReportRow) -> String
    ) -> [HorizontalBarChart.Bar] {
        var order: [String] = []
        var byGroup: [String: [ReportRow]] = [:]
        for row in rows {
            let key = row.group ?? ""
            if byGroup[key] == nil { order.append(key) }
            byGroup[key, default: []].append(row)
        }
        let tips = { (key: String) in byGroup[key, default: []].reduce(0) { $0 + $1.transactions } }
        let ranked = order.sorted { tips($0) != tips($1) ? tips($0) > tips($1) : $0 < $1 }
        func bar(_ rows: [ReportRow], label: String, style: String) -> HorizontalBarChart.Bar {
            let count = rows.reduce(0) { $0 + $1.transactions }
            let nets = rows.map { "\(Money.grouped($0.netMilli, currency: $0.currency)) \($0.currency ?? "")" }
            return HorizontalBarChart.Bar(
                label: label, count: count, countLabel: Self.counted(count, "tip"), style: style,
                title: "\(label): \(Self.counted(count, "tip")), net \(nets.joined(separator: ", "))")
        }
        var bars = ranked.prefix(Self.mostBars).map { key in
            let first = byGroup[key, default: []][0]
            return bar(byGroup[key, default: []], label: name(first), style: style(first))
        }
        let rest = ranked.dropFirst(Self.mostBars)
        if !rest.isEmpty {
            bars.append(bar(rest.flatMap { byGroup[$0, default: []] }, label: "\(rest.count) others", style: "s6"))
        }
        return bars
    }

    private func barSummary(_ bars: [HorizontalBarChart.Bar], of noun: String) -> String {
        let parts = bars.map { "\($0.label) \($0.countLabel)" }
        return "Tips per \(noun), the most first: \(parts.joined(separator: "; "))."
    }

    // MARK: Supporters

    /// Accounts by number of tips, how many tipped again, and the accounts of highest net.
    func writeSupporters(_ environment: AppStoreEnvironment, to section: inout Markup) {
        let counts = overview.tipCounts.filter { $0.environment == environment }
        let accounts = counts.reduce(0) { $0 + $1.accounts }
        let repeating = counts.filter { $0.tips > 1 }.reduce(0) { $0 + $1.accounts }
        let attributed = counts.reduce(0) { $0 + $1.tips * $1.accounts }
        let tips = overview.totals.filter { $0.environment == environment }.reduce(0) { $0 + $1.transactions }
        section.element("h3", text: "Supporters")
        var facts: [String] = []
        if accounts > 0 {
            facts.append(
                "\(Self.counted(accounts, "account")) tipped; \(Money.grouped(count: repeating)) of them "
                    + "(\(repeating * 100 / accounts)%) more than once.")
        }
        if tips > attributed {
            facts.append(
                "\(Self.counted(tips - attributed, "tip")) carry no account token (the app sets none) and are "
                    + "counted for no one.")
        }
        section.element("p", [("class", "note")], text: facts.joined(separator: " "))
        guard accounts > 0 else { return }
        let buckets: [(String, ClosedRange<Int64>)] = [
            ("1 tip", 1...1), ("2 tips", 2...2), ("3 tips", 3...3), ("4 or 5 tips", 4...5), ("6 to 10 tips", 6...10),
            ("more than 10", 11...Int64.max),
        ]
        let bars = buckets.map { label, range in
            let count = counts.filter { range.contains($0.tips) }.reduce(0) { $0 + $1.accounts }
            return HorizontalBarChart.Bar(
                label: label, count: count, countLabel: Self.counted(count, "account"), style: "s2",
                title: "\(Self.counted(count, "account")) tipped \(label == "1 tip" ? "once" : label)")
        }
        let prefix = environment.rawValue.lowercased()
        section.element("div", [("class", "pair")]) { pair in
            pair.element("figure", [("class", "supporters")]) { figure in
                figure.element("figcaption", text: "Accounts by number of tips")
                HorizontalBarChart(
                    id: "\(prefix)-supporters", title: "Accounts by number of tips",
                    summary: "Accounts by how many times they tipped: "
                        + bars.map { "\($0.label), \($0.countLabel)" }.joined(separator: "; ") + ".",
                    bars: bars
                ).write(to: &figure)
            }
            pair.element("div", [("class", "top")]) { top in
                writeTopSupporters(environment, to: &top)
            }
        }
    }

    private func writeTopSupporters(_ environment: AppStoreEnvironment, to top: inout Markup) {
        let rows = overview.topSupporters.filter { $0.environment == environment }
        let present = Set(rows.map { $0.currency ?? "" })
        for currency in totals(environment).map(\.currency) where present.contains(currency ?? "") {
            top.element("table", [("class", "supporters-table"), ("data-currency", currency ?? "")]) { table in
                table.element("caption", text: "Top supporters, \(currency ?? "no currency")")
                table.element("thead") { head in
                    head.element("tr") { row in
                        row.element("th", text: "account")
                        row.element("th", [("class", "n")], text: "tips")
                        row.element("th", [("class", "n")], text: "net")
                    }
                }
                table.element("tbody") { body in
                    for supporter in rows where supporter.currency == currency {
                        body.element("tr") { row in
                            row.element("td") { $0.element("code", text: Self.shortAccount(supporter.account)) }
                            row.element("td", [("class", "n")], text: Money.grouped(count: supporter.transactions))
                            row.element(
                                "td", [("class", "n"), ("data-milli", String(supporter.netMilli))],
                                text: Money.grouped(supporter.netMilli, currency: currency))
                        }
                    }
                }
            }
        }
    }
}
