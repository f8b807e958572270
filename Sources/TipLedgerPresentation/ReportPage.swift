// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// The report page (`ReportRendering.html`) as it is written: the head, a section per
/// environment (headline figures, charts, supporters), the report's table and the open
/// consumption requests. Figures carry their exact values in `data-` attributes, so a program
/// can check them against the JSON report.
struct ReportPage {
    let rendering: ReportRendering
    let overview: ReportOverview
    let query: ReportQuery
    let generated: Int64
    /// Each product's colour class: the six most tipped have their own, the rest share one.
    let productStyles: [String: String]
    /// Each product's label: its catalog name, with its id when another product shown has the
    /// same name; its id when the catalog names it not.
    let productLabels: [String: String]
    /// The products, the most tipped first.
    let rankedProducts: [String]

    init(rendering: ReportRendering, overview: ReportOverview, query: ReportQuery, generated: Int64) {
        self.rendering = rendering
        self.overview = overview
        self.query = query
        self.generated = generated
        var tips: [String: Int64] = [:]
        for row in overview.products { tips[row.group ?? "", default: 0] += row.transactions }
        rankedProducts = tips.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
        let styles = ReportPageStyle.seriesStyles
        productStyles = Dictionary(
            uniqueKeysWithValues: rankedProducts.enumerated().map { ($1, styles[min($0, styles.count - 1)]) })
        let names = rankedProducts.map { rendering.catalog?.product($0)?.displayName }
        var uses: [String: Int] = [:]
        for name in names.compactMap({ $0 }) { uses[name, default: 0] += 1 }
        var labels: [String: String] = [:]
        for (id, name) in zip(rankedProducts, names) {
            labels[id] = name.map { uses[$0, default: 0] > 1 ? "\($0) (\(id))" : $0 } ?? id
        }
        productLabels = labels
    }

    /// The environments that have tips, Production first.
    var environments: [AppStoreEnvironment] { Set(overview.totals.map(\.environment)).sorted() }

    /// The totals of each currency of `environment`, the most tipped first.
    func totals(_ environment: AppStoreEnvironment) -> [ReportRow] {
        overview.totals.filter { $0.environment == environment }.sorted {
            $0.transactions != $1.transactions
                ? $0.transactions > $1.transactions : ($0.currency ?? "") < ($1.currency ?? "")
        }
    }

    func write() -> String {
        var page = Markup()
        page.raw("<!DOCTYPE html>\n")
        page.element("html", [("lang", "en")]) { html in
            html.element("head") { head in
                head.empty("meta", [("charset", "utf-8")])
                head.empty(
                    "meta",
                    [("http-equiv", "Content-Security-Policy"), ("content", ReportPageStyle.contentSecurityPolicy)])
                head.empty("meta", [("name", "viewport"), ("content", "width=device-width, initial-scale=1")])
                head.empty("meta", [("name", "referrer"), ("content", "no-referrer")])
                head.empty("meta", [("name", "color-scheme"), ("content", "light dark")])
                // An icon of its own, so a browser asks the server for no /favicon.ico.
                head.empty("link", [("rel", "icon"), ("href", "data:,")])
                head.element("title", text: "Tips: \(spanText ?? "no tips")")
                head.element("style") { $0.raw(ReportPageStyle.css) }
            }
            html.element("body") { body in
                writeHeader(to: &body)
                if overview.totals.isEmpty {
                    writeEmptyState(to: &body)
                } else {
                    for environment in environments {
                        body.element(
                            "section", [("class", "environment"), ("data-environment", environment.rawValue)]
                        ) { section in
                            section.element("h2", text: environment.rawValue)
                            writeCards(environment, to: &section)
                            writeSeries(environment, to: &section)
                            writeSplits(environment, to: &section)
                            writeSupporters(environment, to: &section)
                        }
                    }
                    writeReportTable(to: &body)
                }
                writeConsumptionRequests(to: &body)
                body.element("footer") { footer in
                    footer.text("Made by ")
                    footer.element("code", text: "tipledger report --format html")
                    footer.text(
                        ". Amounts are in each currency's own units and never added across currencies or "
                            + "environments; periods are by purchase date, in UTC. The page runs no script and "
                            + "loads nothing.")
                }
            }
        }
        return page.text + "\n"
    }

    // MARK: Header, headline figures, empty state

    /// `1 Jan 2026 to 20 Jan 2026`: the first and last purchase; nil without tips.
    var spanText: String? {
        guard let first = overview.firstPurchase, let last = overview.lastPurchase else { return nil }
        let days = PeriodCalendar(period: .day)
        let from = days.name(Self.day(first))
        let to = days.name(Self.day(last))
        return from == to ? from : "\(from) to \(to)"
    }

    /// `YYYY-MM-DD` of a time in milliseconds since 1970, in UTC.
    static func day(_ milliseconds: Int64) -> String {
        String(AppleDate(wholeMilliseconds: milliseconds).description.prefix(10))
    }

    private func writeHeader(to body: inout Markup) {
        var facts: [String] = []
        if let spanText { facts.append("Purchases from \(spanText) (UTC)") }
        if let since = query.since { facts.append("since \(ISODate.minutes(since)) UTC") }
        if let until = query.until { facts.append("before \(ISODate.minutes(until)) UTC") }
        let environments = query.environments?.map(\.rawValue).joined(separator: ", ") ?? "every environment"
        facts.append(environments)
        if let commission = rendering.commission {
            facts.append("proceeds estimated at a \(commission.percent) commission, taxes not subtracted")
        }
        facts.append("made \(ISODate.minutes(generated)) UTC")
        body.element("header") { header in
            header.element("h1", text: "Tips")
            header.element("p", [("class", "meta")], text: facts.joined(separator: " · "))
        }
    }

    private func writeEmptyState(to body: inout Markup) {
        let filtered = query.since != nil || query.until != nil || query.environments != nil
        body.element("section", [("class", "empty")]) { section in
            section.element("h2", text: "No tips to show")
            section.element("p") { paragraph in
                paragraph.text(
                    filtered
                        ? "The ledger holds no transaction for these dates and environments. "
                        : "The ledger holds no transaction yet. ")
                paragraph.text("Tips appear here once ")
                paragraph.element("code", text: "tipledger verify")
                paragraph.text(" or ")
                paragraph.element("code", text: "tipledger serve")
                paragraph.text(" records them.")
            }
        }
    }

    /// A card per currency: net, then tips, gross, refunded, revoked and estimated proceeds.
    private func writeCards(_ environment: AppStoreEnvironment, to section: inout Markup) {
        section.element("div", [("class", "cards")]) { cards in
            for row in totals(environment) {
                let currency = row.currency ?? "no currency"
                let proceeds = rendering.proceeds(row)
                let amounts =
                    [row.netMilli, row.grossMilli, row.refundedMilli, row.revokedMilli]
                    + [proceeds]
                    .compactMap { $0 }
                let texts = Money.grouped(amounts, currency: row.currency)
                cards.element("div", [("class", "card"), ("data-currency", row.currency ?? "")]) { card in
                    card.element("h3", text: "\(currency) net")
                    card.element(
                        "p", [("class", "net"), ("data-field", "net_milli"), ("data-milli", String(row.netMilli))],
                        text: "\(texts[0]) \(row.currency ?? "")")
                    card.element("dl") { list in
                        list.element("dt", text: "tips")
                        list.element(
                            "dd", [("data-field", "transactions"), ("data-count", String(row.transactions))],
                            text: Money.grouped(count: row.transactions))
                        var fields = [
                            ("gross", "gross_milli", row.grossMilli, texts[1]),
                            ("refunded", "refunded_milli", row.refundedMilli, texts[2]),
                            ("revoked", "revoked_milli", row.revokedMilli, texts[3]),
                        ]
                        if let proceeds {
                            fields.append(("proceeds (estimate)", "estimated_proceeds_milli", proceeds, texts[4]))
                        }
                        for (name, field, milli, text) in fields {
                            list.element("dt", text: name)
                            list.element("dd", [("data-field", field), ("data-milli", String(milli))], text: text)
                        }
                    }
                }
            }
        }
    }

    // MARK: The report's table and the consumption requests

    /// The report's rows as `report` prints them, its grouping's group first.
    private func writeReportTable(to body: inout Markup) {
        let grouping = rendering.grouping
        let rows = rendering.report.rows
        body.element("section", [("class", "report")]) { section in
            section.element("h2", text: grouping == .currency ? "Totals by currency" : "Totals by \(grouping.rawValue)")
            section.element("table", [("class", "report-table"), ("data-grouping", grouping.rawValue)]) { table in
                var headers = ["environment"]
                if let field = rendering.groupField { headers.append(field) }
                headers += ["currency"]
                var numeric = ["tips", "units", "gross", "refunded", "revoked", "net"]
                if rendering.commission != nil { numeric.append("proceeds (estimate)") }
                table.element("thead") { head in
                    head.element("tr") { row in
                        for header in headers { row.element("th", text: header) }
                        for header in numeric { row.element("th", [("class", "n")], text: header) }
                    }
                }
                table.element("tbody") { body in
                    for row in rows {
                        body.element("tr") { line in
                            line.element("td", text: row.environment.rawValue)
                            if rendering.groupField != nil { writeGroupCell(row, to: &line) }
                            line.element("td", text: row.currency ?? "–")
                            line.element(
                                "td", [("class", "n"), ("data-field", "transactions")],
                                text: Money.grouped(count: row.transactions))
                            line.element(
                                "td", [("class", "n"), ("data-field", "units")], text: Money.grouped(count: row.units))
                            let proceeds = rendering.proceeds(row)
                            let amounts =
                                [
                                    ("gross_milli", row.grossMilli), ("refunded_milli", row.refundedMilli),
                                    ("revoked_milli", row.revokedMilli), ("net_milli", row.netMilli),
                                ] + (proceeds.map { [("estimated_proceeds_milli", $0)] } ?? [])
                            let texts = Money.grouped(amounts.map(\.1), currency: row.currency)
                            for ((field, milli), text) in zip(amounts, texts) {
                                line.element(
                                    "td", [("class", "n"), ("data-field", field), ("data-milli", String(milli))],
                                    text: text)
                            }
                        }
                    }
                }
            }
            if overview.reportIsCut {
                section.element("p", [("class", "note")]) { note in
                    note.text("The first \(rows.count) rows; all of them: ")
                    note.element("code", text: "tipledger report --by \(grouping.rawValue) --format csv")
                    note.text(".")
                }
            }
        }
    }

    private func writeGroupCell(_ row: ReportRow, to line: inout Markup) {
        guard let group = row.group else {
            line.element("td", text: "–")
            return
        }
        switch rendering.grouping {
        case .product:
            line.element("td") { cell in
                if let name = rendering.productName(row) {
                    cell.text(name + " ")
                }
                cell.element("code", text: group)
            }
        case .account:
            line.element("td", [("title", "shortened; the whole id is in the JSON report")]) {
                $0.element("code", text: Self.shortAccount(group))
            }
        case .currency, .storefront, .day, .month:
            line.element("td", text: group)
        }
    }

    /// An account id as the page shows it: its first 8 characters. The page may be shared; the
    /// whole id is in the JSON report.
    static func shortAccount(_ account: String) -> String {
        account.count > 8 ? String(account.prefix(8)) + "…" : account
    }

    private func writeConsumptionRequests(to body: inout Markup) {
        let requests = rendering.report.openConsumptionRequests
        body.element("section", [("class", "requests")]) { section in
            section.element("h2", text: "Open consumption requests")
            guard !requests.isEmpty else {
                section.element("p", [("class", "note")], text: "None: Apple is waiting on no answer.")
                return
            }
            section.element(
                "p", [("class", "note")],
                text: "Apple asks about a refund request and waits 12 hours for the answer "
                    + "(tipledger consumption sends it).")
            section.element("table", [("class", "requests-table")]) { table in
                table.element("thead") { head in
                    head.element("tr") { row in
                        for header in ["environment", "transaction", "reason", "answer by (UTC)"] {
                            row.element("th", text: header)
                        }
                        row.element("th", [("class", "n")], text: "time left")
                    }
                }
                table.element("tbody") { body in
                    for request in requests {
                        body.element("tr") { row in
                            row.element("td", text: request.environment.rawValue)
                            row.element("td") { $0.element("code", text: request.transactionId) }
                            row.element("td", text: request.reason ?? "–")
                            row.element("td", text: ISODate.minutes(request.deadlineMilliseconds))
                            row.element(
                                "td", [("class", "n")], text: Self.timeLeft(request.deadlineMilliseconds - generated))
                        }
                    }
                }
            }
        }
    }

    /// `5 h 12 min`, `40 min`, or `past` for a deadline gone by.
    static func timeLeft(_ milliseconds: Int64) -> String {
        guard milliseconds > 0 else { return "past" }
        let minutes = (milliseconds + 59_999) / 60_000
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    /// `1 tip`, `12 tips`: a count and its noun.
    static func counted(_ count: Int64, _ noun: String) -> String {
        "\(Money.grouped(count: count)) \(noun)\(count == 1 ? "" : "s")"
    }
}
