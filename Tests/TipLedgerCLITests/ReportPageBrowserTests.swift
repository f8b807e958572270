// SPDX-License-Identifier: GPL-3.0-or-later
//
// The report page in a real browser: headless Chromium opens it from a file and from `serve`,
// and the tests check from the DOM it rendered and from its screenshot that every chart drew its
// bars, that the page asked for nothing over the network, and that the picture is not blank.
// The screenshots stay in $TMPDIR/tipledger-report-screenshots-<worktree>/ to look at, with
// timings.txt (the page's size and how long the browser took, start-up included); each run
// replaces them. docs/report-page.png is the demo's, demo.png there.
import Foundation
import Testing
import TipLedgerTestSupport

/// Launches are few and one at a time: Chromium is slow to start on a small machine.
@Suite(
    .serialized,
    .enabled(
        if: Chromium.isInstalled,
        "chromium is not installed at /usr/bin/chromium; scripts/install-deps (make deps) installs it"))
struct ReportPageBrowserTests {
    static let screenshots =
        "\(NSTemporaryDirectory())tipledger-report-screenshots-\(URL(fileURLWithPath: Fixtures.projectDirectory).lastPathComponent)"
    /// The page of 100,000 transactions stays under this size: it grows with periods, products,
    /// storefronts and currencies, not with transactions.
    static let largestPage = 300_000

    /// A page and what its charts must show, from the JSON reports of the same ledger.
    struct Expectation {
        /// Environment and currency of each chart over time, in the page's order.
        var series: [(environment: String, currency: String)] = []
        /// Periods with tips, per environment and currency.
        var bars: [String: Set<String>] = [:]
        /// Bars of the charts per tier and per storefront, per environment.
        var productBars: [String: Int] = [:]
        var storefrontBars: [String: Int] = [:]
        var period = "day"
    }

    /// What the page of `ledger` (read with `filters`) must show, from its JSON reports by
    /// currency, day, product and storefront.
    static func expectation(_ ledger: String, _ filters: [String] = []) async throws -> Expectation {
        func rows(_ grouping: String) async throws -> [[String: Any]] {
            let json = try await ReportPageCommandTests.json(ledger, filters + ["--by", grouping])
            return try #require(json["rows"] as? [[String: Any]])
        }
        func key(_ row: [String: Any]) -> String {
            "\(row["environment"] as? String ?? "") \(row["currency"] as? String ?? "")"
        }
        var expected = Expectation()
        let totals = try await rows("currency")
        for environment in Set(totals.compactMap { $0["environment"] as? String }).sorted() {
            let own = totals.filter { $0["environment"] as? String == environment }
                .sorted {
                    ($0["transactions"] as? Int ?? 0, $1["currency"] as? String ?? "") > (
                        $1["transactions"] as? Int ?? 0, $0["currency"] as? String ?? ""
                    )
                }
            expected.series += own.map { (environment, $0["currency"] as? String ?? "") }
        }
        let days = try await rows("day")
        let dates = days.compactMap { $0["day"] as? String }.compactMap { Self.dayNumber($0) }
        if let first = dates.min(), let last = dates.max() {
            let span = last - first
            expected.period = span < 45 ? "day" : span < 280 ? "week" : span < 2920 ? "month" : "year"
        }
        for row in days {
            guard let day = row["day"] as? String else { continue }
            expected.bars[key(row), default: []].insert(Self.periodStart(of: day, expected.period))
        }
        for (grouping, keyPath) in [("product", \Expectation.productBars), ("storefront", \Expectation.storefrontBars)]
        {
            var groups: [String: Set<String>] = [:]
            for row in try await rows(grouping) {
                groups[row["environment"] as? String ?? "", default: []].insert(row[grouping] as? String ?? "")
            }
            expected[keyPath: keyPath] = groups.mapValues { min($0.count, 13) }
        }
        return expected
    }

    /// Days since 1970 of `YYYY-MM-DD`.
    static func dayNumber(_ day: String) -> Int? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (parts[0], parts[1], parts[2])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).map { Int($0.timeIntervalSince1970) / 86_400 }
    }

    /// The first day of the period holding `day`: the Monday of its week, the first of its
    /// month or year.
    static func periodStart(of day: String, _ period: String) -> String {
        switch period {
        case "week":
            guard let number = dayNumber(day) else { return day }
            // 1970-01-01 was a Thursday, three days after a Monday.
            let monday = number - (number + 3) % 7
            let date = Date(timeIntervalSince1970: Double(monday) * 86_400)
            return String(date.formatted(Date.ISO8601FormatStyle()).prefix(10))
        case "month": return day.prefix(7) + "-01"
        case "year": return day.prefix(4) + "-01-01"
        default: return day
        }
    }

    /// The light and dark colours of the style sheet's series classes (`s0`…, `refund`) and
    /// background, read from the page: `--c0:#0072b2` stands for `.s0`.
    static func palette(of page: String) -> (light: [String: UInt32], dark: [String: UInt32]) {
        func colours(_ block: Substring) -> [String: UInt32] {
            var found: [String: UInt32] = [:]
            for declaration in block.split(separator: ";") {
                let parts = declaration.split(separator: ":")
                guard parts.count == 2, parts[0].hasPrefix("--"), parts[1].hasPrefix("#"),
                    let value = UInt32(parts[1].dropFirst().prefix(6), radix: 16)
                else { continue }
                let name = parts[0].dropFirst(2)
                found[name.hasPrefix("c") ? "s" + name.dropFirst() : String(name)] = value
            }
            return found
        }
        let roots = page.components(separatedBy: ":root{").dropFirst().map { $0.prefix { $0 != "}" } }
        return (roots.first.map(colours) ?? [:], roots.dropFirst().first.map(colours) ?? [:])
    }

    /// The markup of each element whose start tag begins with `start`, up to its end tag
    /// `</name>` (the page nests no element of the same name in these).
    static func chunks(of dom: String, _ start: String, closing name: String) -> [Substring] {
        dom.components(separatedBy: start).dropFirst().map { chunk in
            chunk.range(of: "</\(name)>").map { chunk[..<$0.lowerBound] } ?? Substring(chunk)
        }
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let range = tag.range(of: "\(name)=\"") else { return nil }
        return String(tag[range.upperBound...].prefix { $0 != "\"" })
    }

    static func count(_ needle: String, in text: Substring) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// Checks a visit of `source` (the page as written) against `expected`: the charts the DOM
    /// holds, the requests the page made, and the screenshot.
    static func check(
        _ visit: Chromium.Visit, of source: String, _ expected: Expectation, dark: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(visit.pageRequests.isEmpty, "the page asked for \(visit.pageRequests)", sourceLocation: sourceLocation)
        #expect(visit.console.isEmpty, "console: \(visit.console)", sourceLocation: sourceLocation)
        #expect(visit.dom.contains("<h1>Tips</h1>"), "the page rendered", sourceLocation: sourceLocation)

        var series: [(String, String)] = []
        for section in chunks(of: visit.dom, "<section class=\"environment\"", closing: "section") {
            let environment = attribute("data-environment", in: section) ?? ""
            for figure in chunks(of: String(section), "<figure class=\"series\"", closing: "figure") {
                let currency = attribute("data-currency", in: figure) ?? ""
                series.append((environment, currency))
                #expect(attribute("data-period", in: figure) == expected.period, sourceLocation: sourceLocation)
                let bars = chunks(of: String(figure), "<g class=\"bar\"", closing: "g")
                let periods = Set(bars.compactMap { attribute("data-period", in: $0) })
                #expect(bars.count == periods.count, sourceLocation: sourceLocation)
                #expect(
                    periods == expected.bars["\(environment) \(currency)"] ?? [],
                    "\(environment) \(currency): the bars drawn", sourceLocation: sourceLocation)
                #expect(bars.allSatisfy { count("<rect class=\"seg", in: $0) > 0 }, sourceLocation: sourceLocation)
            }
            for (kind, counts) in [("products", expected.productBars), ("storefronts", expected.storefrontBars)] {
                let figure = chunks(of: String(section), "<figure class=\"\(kind)\"", closing: "figure").first ?? ""
                #expect(
                    count("<g class=\"row\"", in: figure) == counts[environment], "\(environment) \(kind)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(series.map(\.0) == expected.series.map(\.environment), sourceLocation: sourceLocation)
        #expect(series.map(\.1) == expected.series.map(\.currency), sourceLocation: sourceLocation)
        // Every segment written is in the DOM the browser built.
        #expect(
            count("<rect class=\"seg", in: Substring(visit.dom)) == count("<rect class=\"seg", in: Substring(source)),
            sourceLocation: sourceLocation)

        // The screenshot: not one colour, and each colour of a column segment of some height in
        // the first chart painted (the first chart is always within the window).
        let image = visit.screenshot
        let histogram = image.histogram
        let background = histogram.values.max() ?? 0
        #expect(histogram.count >= 16, "\(histogram.count) colours", sourceLocation: sourceLocation)
        #expect(
            background * 100 < image.width * image.height * 97, "the background fills \(background) pixels",
            sourceLocation: sourceLocation)
        let palette = palette(of: source)
        let colours = dark ? palette.dark : palette.light
        #expect(image.colour(x: 2, y: 2) == colours["bg"], "the background", sourceLocation: sourceLocation)
        let first = chunks(of: visit.dom, "<figure class=\"series\"", closing: "figure").first ?? ""
        for segment in chunks(of: String(first), "<rect class=\"seg ", closing: "rect") {
            guard let style = segment.split(separator: "\"").first,
                let height = attribute("height", in: segment).flatMap(Double.init), height >= 2
            else { continue }
            let colour = colours[String(style)]
            #expect(colour != nil, "\(style) has a colour", sourceLocation: sourceLocation)
            #expect(
                histogram[colour ?? 0, default: 0] >= 4, "the \(style) segments are painted",
                sourceLocation: sourceLocation)
        }
    }

    /// Writes the page of `ledger` to a file, visits it, and records its size and the browser's
    /// time in timings.txt.
    static func visitFile(
        _ name: String, ledger: String, filters: [String] = ["--commission", "15%"], height: Int,
        in directory: TemporaryDirectory
    ) async throws -> (String, Chromium.Visit) {
        let result = try await TipLedgerBinary.run(
            ["report", "--format", "html"] + filters + PageLedgers.reading(ledger), in: directory.path)
        try #require(result.exited(0), "\(result.summary)")
        let page = directory.file("\(name).html")
        try result.standardOutput.write(to: URL(fileURLWithPath: page))
        let visit = try await Chromium.visit(
            URL(fileURLWithPath: page).absoluteString, height: height, screenshot: "\(screenshots)/\(name).png",
            in: directory)
        try record(name, bytes: result.standardOutput.count, visit: visit)
        return (result.out, visit)
    }

    static func record(_ name: String, bytes: Int, visit: Chromium.Visit) throws {
        let line = "\(name): \(bytes) bytes, Chromium \(String(format: "%.2f", visit.seconds)) s\n"
        let path = "\(screenshots)/timings.txt"
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            try handle.close()
        } else {
            try line.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// The screenshot folder, emptied once per run.
    private static let emptied: Result<Void, any Error> = Result {
        try? FileManager.default.removeItem(atPath: screenshots)
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
    }

    init() throws {
        try Self.emptied.get()
    }

    /// The demo's page, in the light scheme at the size of the README's picture and in the dark.
    @Test func theDemoPageShowsItsTipsAtAGlance() async throws {
        let demo = try await DemoRun.shared.outcome(keepingFiles: true)
        try #require(demo.result.exited(0), "\(demo.result.summary)")
        let files = try #require(demo.files)
        let source = try String(contentsOfFile: demo.page, encoding: .utf8)
        let expected = try await Self.expectation("\(files)/tips.sqlite")
        try await TemporaryDirectory.with { directory in
            let url = URL(fileURLWithPath: demo.page).absoluteString
            let light = try await Chromium.visit(
                url, width: 1000, height: 1500, screenshot: "\(Self.screenshots)/demo.png", in: directory)
            Self.check(light, of: source, expected)
            try Self.record("demo", bytes: source.utf8.count, visit: light)
            let dark = try await Chromium.visit(
                url, width: 1000, height: 1500, dark: true, screenshot: "\(Self.screenshots)/demo-dark.png",
                in: directory)
            Self.check(dark, of: source, expected, dark: true)
        }
    }

    /// Pages of an empty ledger, of one tip, of tips in three currencies and of 100,000
    /// transactions, from files.
    @Test(arguments: [
        (PageLedgers.Kind.empty, 900), (.oneTip, 2400), (.threeCurrencies, 3400), (.hundredThousand, 3400),
    ])
    func aPageFromAFileRendersEveryChart(_ kind: PageLedgers.Kind, _ height: Int) async throws {
        let ledger = try await PageLedgers.shared.ledger(kind)
        let expected = try await Self.expectation(ledger)
        try await TemporaryDirectory.with { directory in
            let (source, visit) = try await Self.visitFile(kind.rawValue, ledger: ledger, height: height, in: directory)
            Self.check(visit, of: source, expected)
            switch kind {
            case .empty:
                #expect(visit.dom.contains("<section class=\"empty\"><h2>No tips to show</h2>"))
                #expect(!visit.dom.contains("<svg"))
            case .oneTip:
                let series = Self.chunks(of: visit.dom, "<figure class=\"series\"", closing: "figure")
                #expect(series.map { Self.count("<rect class=\"seg", in: $0) } == [1], "one chart of one segment")
            case .hundredThousand:
                #expect(source.utf8.count < Self.largestPage, "\(source.utf8.count) bytes")
            case .threeCurrencies, .fixed:
                break
            }
        }
    }

    /// The page `serve` sends, opened as a browser opens it: asked for the token by the Basic
    /// challenge, given it as the password in the URL.
    @Test func thePageFromServeRenders() async throws {
        let ledger = try await PageLedgers.shared.ledger(.fixed)
        let token = "browser-test-token-7d2f9c41a0"
        let filters = ["--environment", "Sandbox"]
        let expected = try await Self.expectation(ledger, filters)
        try await TemporaryDirectory.with { directory in
            let serve = try await ServeProcess.start(
                PageLedgers.reading(ledger) + filters + ["--bundle-id", SharedInputs.bundleId],
                environment: ["TIPLEDGER_API_TOKEN": token], in: directory.path)
            let visit: Chromium.Visit
            do {
                visit = try await Chromium.visit(
                    "http://tipledger:\(token)@127.0.0.1:\(serve.port)/v1/report.html?commission=15%25", height: 2400,
                    screenshot: "\(Self.screenshots)/serve.png", in: directory)
            } catch {
                _ = serve.stop()
                throw error
            }
            #expect(serve.stop() == 0)
            let source = try await TipLedgerBinary.run(
                ["report", "--format", "html", "--commission", "15%"] + filters + PageLedgers.reading(ledger),
                in: directory.path
            ).out
            Self.check(visit, of: source, expected)
            try Self.record("serve", bytes: source.utf8.count, visit: visit)
        }
    }
}
