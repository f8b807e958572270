// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerPresentation
@testable import TipLedgerStore

/// The report page from a fixed overview: well-formed, with a chart per environment and
/// currency whose bars add up to the totals, text alternatives, and nothing that identifies an
/// account or lets a name break out of its text.
@Suite struct ReportPageTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_767_261_600_000  // 2026-01-01T10:00:00Z
    static let accounts = [
        "7e3fb20b-4cdb-47cc-936d-99d65f608138", "0d9a1f5e-7c1b-4d8e-9f3a-2b6c8e4a1d07",
        "5b2c7d1e-9a4f-4e3b-8c6d-1f0e2a3b4c5d",
    ]

    static func row(
        _ environment: AppStoreEnvironment, _ group: String?, _ currency: String?, tips: Int64, gross: Int64,
        refunded: Int64 = 0
    ) -> ReportRow {
        ReportRow(
            environment: environment, group: group, currency: currency, transactions: tips, units: tips,
            grossMilli: gross, refundedMilli: refunded, revokedMilli: 0)
    }

    /// Tips in dollars (a large one refunded) and euros in Sandbox, in yen in Production, over
    /// three days; an open consumption request due in two hours.
    static let overview: ReportOverview = {
        let series = [
            PeriodRow(start: "2026-01-01", totals: row(.sandbox, "tip.small", "USD", tips: 2, gross: 1980)),
            PeriodRow(
                start: "2026-01-01", totals: row(.sandbox, "tip.large", "USD", tips: 1, gross: 9990, refunded: 9990)),
            PeriodRow(start: "2026-01-02", totals: row(.sandbox, "tip.small", "EUR", tips: 1, gross: 1190)),
            PeriodRow(start: "2026-01-03", totals: row(.sandbox, "tip.small", "USD", tips: 1, gross: 990)),
            PeriodRow(start: "2026-01-02", totals: row(.production, "tip.small", "JPY", tips: 1, gross: 160_000)),
        ]
        let products = [
            row(.production, "tip.small", "JPY", tips: 1, gross: 160_000),
            row(.sandbox, "tip.large", "USD", tips: 1, gross: 9990, refunded: 9990),
            row(.sandbox, "tip.small", "EUR", tips: 1, gross: 1190),
            row(.sandbox, "tip.small", "USD", tips: 3, gross: 2970),
        ]
        let request = ConsumptionRequest(
            environment: .sandbox, transactionId: "2000000000000002", reason: "UNINTENDED_PURCHASE",
            deadlineMilliseconds: start + 3 * day + 2 * 3_600_000)
        return ReportOverview(
            report: Report(rows: products, openConsumptionRequests: [request]), reportIsCut: false,
            totals: [
                row(.production, nil, "JPY", tips: 1, gross: 160_000), row(.sandbox, nil, "EUR", tips: 1, gross: 1190),
                row(.sandbox, nil, "USD", tips: 4, gross: 12_960, refunded: 9990),
            ],
            firstPurchase: start, lastPurchase: start + 2 * day, period: .day, series: series, products: products,
            storefronts: [
                row(.production, "JPN", "JPY", tips: 1, gross: 160_000),
                row(.sandbox, "DEU", "EUR", tips: 1, gross: 1190),
                row(.sandbox, "USA", "USD", tips: 4, gross: 12_960, refunded: 9990),
            ],
            tipCounts: [
                TipCountRow(environment: .production, tips: 1, accounts: 1),
                TipCountRow(environment: .sandbox, tips: 1, accounts: 1),
                TipCountRow(environment: .sandbox, tips: 4, accounts: 1),
            ],
            topSupporters: [
                SupporterRow(
                    environment: .production, account: accounts[2], currency: "JPY", transactions: 1, netMilli: 160_000),
                SupporterRow(
                    environment: .sandbox, account: accounts[1], currency: "EUR", transactions: 1, netMilli: 1190),
                SupporterRow(
                    environment: .sandbox, account: accounts[0], currency: "USD", transactions: 4, netMilli: 2970),
            ])
    }()

    static func catalog(large: String = "Large Tip") throws -> StoreKitCatalog {
        let text = #"""
            {"products": [
             {"productID": "tip.small", "displayPrice": "0.99", "localizations": [{"locale": "en_US", "displayName": "Small Tip"}]},
             {"productID": "tip.large", "displayPrice": "9.99", "localizations": [{"locale": "en_US", "displayName": "\#(large)"}]}
            ], "settings": {"_locale": "en_US"}}
            """#
        return try StoreKitCatalog(json: Array(text.utf8))
    }

    static func page(
        _ overview: ReportOverview = overview, grouping: ReportGrouping = .product, catalog: StoreKitCatalog? = nil
    ) throws -> String {
        ReportRendering(
            report: overview.report, grouping: grouping, commission: try CommissionRate(parsing: "15%"),
            catalog: try catalog ?? Self.catalog()
        ).html(overview, query: ReportQuery(grouping: grouping), generated: start + 3 * day)
    }

    @Test func thePageIsWellFormedWithAChartPerEnvironmentAndCurrency() throws {
        let root = try MarkupNode.parse(try Self.page())

        let series = root.all("figure", class: "series")
        #expect(series.map { $0.attributes["data-currency"] ?? "" } == ["JPY", "USD", "EUR"])
        #expect(series.allSatisfy { $0.attributes["data-period"] == "day" })
        // Every chart of an environment spans its three days; a bar where there are tips.
        let bars = series.map { $0.all("g", class: "bar").map { $0.attributes["data-period"] ?? "" } }
        #expect(bars == [["2026-01-02"], ["2026-01-01", "2026-01-03"], ["2026-01-02"]])
        let segments = series.map { $0.all("rect", class: "seg").count }
        #expect(segments == [1, 3, 1], "the refunded large tip's net of zero is not drawn")
        #expect(root.all("svg", class: "rows").count == 6, "products, storefronts and supporters in each")
    }

    /// Above zero the segments add up to the net, below zero to what was refunded.
    @Test func theBarsAddUpToTheTotals() throws {
        let root = try MarkupNode.parse(try Self.page())

        for figure in root.all("figure", class: "series") {
            let currency = figure.attributes["data-currency"]
            let total = try #require(Self.overview.totals.first { $0.currency == currency })
            let values = figure.all("rect", class: "seg").compactMap {
                $0.attributes["data-milli"].flatMap { Int64($0) }
            }
            #expect(values.filter { $0 > 0 }.reduce(0, +) == total.netMilli, "\(currency ?? "")")
            #expect(values.filter { $0 < 0 }.reduce(0, +) == -(total.refundedMilli + total.revokedMilli))
        }
        let cards = root.all("div", class: "card")
        #expect(
            cards.compactMap { $0.first("p", class: "net")?.attributes["data-milli"] } == ["160000", "2970", "1190"])
    }

    /// Every chart is an image with a title and a description that its `aria-labelledby` names,
    /// and no two elements share an id.
    @Test func everyChartHasATextAlternative() throws {
        let root = try MarkupNode.parse(try Self.page())
        let ids = root.descendants.compactMap { $0.attributes["id"] }

        #expect(Set(ids).count == ids.count, "ids are unique")
        let charts = root.all("svg")
        #expect(charts.count == 9)
        for chart in charts {
            #expect(chart.attributes["role"] == "img")
            let named = (chart.attributes["aria-labelledby"] ?? "").split(separator: " ").map(String.init)
            #expect(named.count == 2)
            #expect(chart.children.prefix(2).map(\.name) == ["title", "desc"])
            #expect(chart.children.prefix(2).compactMap { $0.attributes["id"] } == named)
            #expect(chart.children.prefix(2).allSatisfy { !$0.text.isEmpty })
        }
        let dollars = root.all("figure", class: "series").first { $0.attributes["data-currency"] == "USD" }
        let legend = try #require(dollars?.first("ul", class: "legend"))
        #expect(legend.all("li").map(\.text) == ["Small Tip", "Large Tip", "refunded and revoked"])
    }

    /// The page may be shared: it shows an account's first 8 characters, never the whole id.
    @Test func accountIdsAreShortened() throws {
        for grouping in [ReportGrouping.product, .account] {
            var overview = Self.overview
            if grouping == .account {
                let rows = Self.accounts.map { Self.row(.sandbox, $0, "USD", tips: 1, gross: 990) }
                overview = ReportOverview(
                    report: Report(rows: rows, openConsumptionRequests: []), reportIsCut: true,
                    totals: overview.totals, firstPurchase: overview.firstPurchase, lastPurchase: overview.lastPurchase,
                    period: overview.period, series: overview.series, products: overview.products,
                    storefronts: overview.storefronts, tipCounts: overview.tipCounts,
                    topSupporters: overview.topSupporters)
            }
            let page = try Self.page(overview, grouping: grouping)

            for account in Self.accounts {
                #expect(!page.contains(account), "\(grouping)")
                #expect(!page.contains(account.suffix(12)), "\(grouping)")
                #expect(page.contains(String(account.prefix(8)) + "…"), "\(grouping)")
            }
        }
    }

    /// A name from a catalog is text, whatever it holds.
    @Test func aNameCannotBreakOutOfItsText() throws {
        let hostile = #"<b onmouseover=\"steal()\">Large</b> & \u0000\u001b]0;"#
        let page = try Self.page(catalog: try Self.catalog(large: hostile))
        let root = try MarkupNode.parse(page)

        #expect(root.all("b").isEmpty)
        #expect(!page.contains("<b "))
        #expect(
            root.all("ul", class: "legend").contains { $0.text.contains(#"<b onmouseover="steal()">Large</b> & "#) })
    }

    /// The page carries its policy: no script, no request.
    @Test func thePageForbidsEveryRequest() throws {
        let root = try MarkupNode.parse(try Self.page())

        let policy = root.all("meta").first { $0.attributes["http-equiv"] == "Content-Security-Policy" }
        #expect(policy?.attributes["content"] == "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
        #expect(root.all("script").isEmpty && root.all("img").isEmpty)
        #expect(root.all("link").map { $0.attributes["href"] } == ["data:,"])
    }

    @Test func anOpenConsumptionRequestShowsItsDeadline() throws {
        let root = try MarkupNode.parse(try Self.page())

        let row = try #require(root.first("table", class: "requests-table")?.first("tbody")?.first("tr"))
        #expect(
            row.all("td").map(\.text) == [
                "Sandbox", "2000000000000002", "UNINTENDED_PURCHASE", "2026-01-04 12:00", "2 h 0 min",
            ])
    }

    /// Without tips: a clear empty state and no chart; what Apple waits on is still listed.
    @Test func anEmptyLedgerHasAnEmptyState() throws {
        let empty = ReportOverview(
            report: Report(rows: [], openConsumptionRequests: Self.overview.report.openConsumptionRequests),
            reportIsCut: false, totals: [], firstPurchase: nil, lastPurchase: nil, period: .day, series: [],
            products: [], storefronts: [], tipCounts: [], topSupporters: [])
        let root = try MarkupNode.parse(try Self.page(empty))

        #expect(root.first("section", class: "empty")?.first("h2")?.text == "No tips to show")
        #expect(root.all("svg").isEmpty)
        #expect(root.all("table", class: "report-table").isEmpty)
        #expect(root.first("table", class: "requests-table")?.first("tbody")?.all("tr").count == 1)
    }
}
