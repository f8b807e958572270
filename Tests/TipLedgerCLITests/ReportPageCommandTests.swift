// SPDX-License-Identifier: GPL-3.0-or-later
//
// The page of a small fixed ledger, read as XML, outlined (headings, figures, bars, legends,
// tables) and compared with Golden/report-page-outline.txt. After a deliberate change to the
// page, regenerate the outline with
//
//     TIPLEDGER_UPDATE_GOLDEN=1 swift test --filter TipLedgerCLITests.ReportPageCommandTests
//
// then review the diff and commit it.
import Foundation
import Testing
import TipLedgerTestSupport

@Suite struct ReportPageCommandTests {
    static let goldenPath = "\(HelpGoldenTests.goldenDirectory)/report-page-outline.txt"

    /// The page of `ledger` for `arguments`, parsed.
    static func page(_ ledger: String, _ arguments: [String] = []) async throws -> (String, MarkupNode) {
        let result = try await TipLedgerBinary.run(
            ["report", "--format", "html"] + arguments + PageLedgers.reading(ledger), in: SharedInputs.directory)
        try #require(result.exited(0), "\(result.summary)")
        #expect(result.err.isEmpty, "\(result.err)")
        return (result.out, try MarkupNode.parse(result.out))
    }

    /// The JSON report of `ledger` for `arguments`.
    static func json(_ ledger: String, _ arguments: [String]) async throws -> [String: Any] {
        let result = try await TipLedgerBinary.run(
            ["report", "--format", "json"] + arguments + PageLedgers.reading(ledger), in: SharedInputs.directory)
        try #require(result.exited(0), "\(result.summary)")
        return try result.json()
    }

    @Test func thePageOfAFixedLedgerHasItsOutline() async throws {
        let ledger = try await PageLedgers.shared.ledger(.fixed)
        let (_, root) = try await Self.page(ledger, ["--commission", "15%"])

        let outline = PageOutline.lines(of: root).joined(separator: "\n") + "\n"
        if HelpGoldenTests.updating {
            try outline.write(toFile: Self.goldenPath, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: Self.goldenPath, encoding: .utf8)
        #expect(outline == expected, "the page's outline differs from Golden/report-page-outline.txt:\n\(outline)")
    }

    /// Each set of filters the other formats take, on the fixed ledger.
    static let filters: [[String]] = [
        [], ["--commission", "15%"], ["--by", "currency"], ["--by", "storefront", "--commission", "0.3"],
        ["--by", "account"], ["--by", "day"], ["--by", "month"], ["--since", "2026-03-10", "--until", "2026-03-15"],
        ["--environment", "Production"],
    ]

    /// The page's figures are the JSON report's: its table row by row, a headline card per
    /// currency, and the columns of the chart over time, which add up to each currency's net
    /// (and, below zero, to what was refunded and revoked).
    @Test(arguments: filters)
    func thePagesFiguresAreTheJSONReports(_ filters: [String]) async throws {
        let ledger = try await PageLedgers.shared.ledger(.fixed)
        let (source, root) = try await Self.page(ledger, filters)
        let grouped = try #require(try await Self.json(ledger, filters)["rows"] as? [[String: Any]])
        var byCurrency = ["--by", "currency"]
        for (index, argument) in filters.enumerated() where argument != "--by" && filters[max(index - 1, 0)] != "--by" {
            byCurrency.append(argument)
        }
        let totals = try #require(try await Self.json(ledger, byCurrency)["rows"] as? [[String: Any]])

        let fields = ["gross_milli", "refunded_milli", "revoked_milli", "net_milli", "estimated_proceeds_milli"]
        let table = PageCells(source).rows
        #expect(table.count == grouped.count)
        for (cells, row) in zip(table, grouped) {
            for field in fields { #expect(cells[field] == (row[field] as? Int).map(String.init), "\(field)") }
        }
        let cards = root.all("div", class: "card")
        #expect(cards.count == totals.count)
        for total in totals {
            let currency = total["currency"] as? String ?? ""
            let card = try #require(cards.first { $0.attributes["data-currency"] == currency }, "\(currency)")
            var figures = Dictionary(
                uniqueKeysWithValues: card.descendants.compactMap { node in
                    node.attributes["data-field"].flatMap { field in node.attributes["data-milli"].map { (field, $0) } }
                })
            figures["transactions"] = card.first("dd")?.attributes["data-count"]
            for field in fields + ["transactions"] {
                #expect(figures[field] == (total[field] as? Int).map(String.init), "\(currency) \(field)")
            }
            let series = try #require(
                root.all("figure", class: "series").first { $0.attributes["data-currency"] == currency })
            let values = series.all("rect", class: "seg").compactMap { $0.attributes["data-milli"].flatMap { Int($0) } }
            #expect(values.filter { $0 > 0 }.reduce(0, +) == total["net_milli"] as? Int)
            let lost = (total["refunded_milli"] as? Int ?? 0) + (total["revoked_milli"] as? Int ?? 0)
            #expect(values.filter { $0 < 0 }.reduce(0, +) == -lost)
        }
        if totals.isEmpty { #expect(root.first("section", class: "empty") != nil) }
    }

    /// A page of markup is of no use scrolling by on a terminal: refused, with the way to write
    /// it to a file, before the ledger is even opened. `script` gives the binary a terminal.
    @Test func thePageIsNotWrittenToATerminal() async throws {
        let binary = try TipLedgerBinary.path()
        try await TemporaryDirectory.with { directory in
            let result = try await Subprocess(
                executable: "/usr/bin/script",
                arguments: ["-qec", "'\(binary)' report --format html --db missing.sqlite", "/dev/null"],
                environment: Subprocess.baseEnvironment(), directory: directory.path
            ).run()

            #expect(result.exited(64), "\(result.summary)")
            #expect(
                result.out.replacingOccurrences(of: "\r\n", with: "\n")
                    == "error: the page is HTML for a browser; redirect it to a file\n"
                    + "hint: tipledger report --format html > tips.html, then open tips.html\n")
        }
    }
}

/// The structure of a report page as lines of text: what a reader sees, element by element,
/// without the time the page was made.
enum PageOutline {
    static func lines(of root: MarkupNode) -> [String] {
        guard let body = root.first("body") else { return ["no body"] }
        return body.children.flatMap { lines(of: $0, depth: 0) }
    }

    private static func lines(of node: MarkupNode, depth: Int) -> [String] {
        let indent = String(repeating: "  ", count: depth)
        let classes = node.attributes["class"].map { ".\($0.replacingOccurrences(of: " ", with: "."))" } ?? ""
        let data = node.attributes.filter { $0.key.hasPrefix("data-") }.sorted { $0.key < $1.key }
            .map { "[\($0.key.dropFirst(5))=\($0.value)]" }.joined()
        switch node.name {
        case "h1", "h2", "h3", "figcaption", "caption", "summary":
            return ["\(indent)\(node.name) \(node.text)"]
        case "p" where node.hasClass("meta"):
            return ["\(indent)p.meta (the filters and the time the page was made)"]
        case "p", "dt", "dd", "li", "th", "td", "footer":
            return ["\(indent)\(node.name)\(classes)\(data) \(node.text)"]
        case "svg":
            let title = node.first("title")?.text ?? ""
            if node.hasClass("columns") {
                let bars = node.all("g", class: "bar")
                let segments = bars.map { bar in
                    bar.all("rect").map { rect in
                        "\(rect.attributes["class"]?.split(separator: " ").last ?? "")=\(rect.attributes["data-milli"] ?? "")"
                    }.joined(separator: " ")
                }
                let ticks = node.all("text", class: "tick").map(\.text).joined(separator: " | ")
                let labels = node.all("text", class: "label").map(\.text).joined(separator: " | ")
                return [
                    "\(indent)svg \(title): ticks \(ticks); labels \(labels)",
                    "\(indent)  desc \(node.first("desc")?.text ?? "")",
                ]
                    + zip(bars, segments).map { "\(indent)  bar \($0.attributes["data-period"] ?? ""): \($1)" }
            }
            return ["\(indent)svg \(title)"]
                + node.all("g", class: "row").map { row in
                    "\(indent)  \(row.all("text").map(\.text).joined(separator: ": "))"
                }
        default:
            return ["\(indent)\(node.name)\(classes)\(data)"]
                + node.children.flatMap { lines(of: $0, depth: depth + 1) }
        }
    }
}
