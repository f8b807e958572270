// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// Real catalogs are messy: a Japanese app's `.storekit` leaves every en_US name empty and
/// names its tiers in Japanese; another names its large tier "Medium Tip" by mistake. Every
/// output shows a name that is there, never an empty one, and a name two products share is said
/// on standard error.
@Suite struct CatalogLabelTests {
    static let products = ["art.nightthought.tip.small", "art.nightthought.tip.medium", "art.nightthought.tip.large"]
    static let japaneseNames = ["小さなチップ", "中くらいのチップ", "大きなチップ"]

    /// A catalog for the Japanese storefront, written in Japanese: its en_US names are empty.
    static let japanese: String = {
        let entries = zip(zip(products, japaneseNames), ["100", "500", "1000"]).map { pair, price in
            """
            {"productID": "\(pair.0)", "referenceName": "Tip \(price)", "displayPrice": "\(price)",
             "type": "Consumable", "localizations": [
                {"locale": "en_US", "displayName": "", "description": ""},
                {"locale": "ja", "displayName": "\(pair.1)", "description": "ありがとう"}]}
            """
        }
        return
            #"{"products": [\#(entries.joined(separator: ", "))], "settings": {"_locale": "ja", "_storefront": "JPN"}}"#
    }()

    /// Signs a tip of each of the catalog's products and records them into `ledger.sqlite`.
    static func record(catalog: String, products: [String], in directory: TemporaryDirectory) async throws {
        let keys = try await SharedInputs.shared.keys()
        var tokens = ""
        for product in products {
            let signed = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--catalog", catalog, "--product", product],
                in: directory.path)
            try #require(signed.exited(0), "\(signed.summary)")
            tokens += signed.out
        }
        let recorded = try await TipLedgerBinary.run(
            ["verify", "--db", "ledger.sqlite"] + SharedInputs.acceptingTestkit(keys: keys), input: .text(tokens),
            in: directory.path)
        try #require(recorded.exited(0), "\(recorded.summary)")
    }

    @Test func aCatalogWithEmptyEnglishNamesIsNamedInItsOwnLanguage() async throws {
        try await TemporaryDirectory.with { directory in
            try directory.write(Self.japanese, to: "Japan.storekit")
            try await Self.record(catalog: "Japan.storekit", products: Self.products, in: directory)
            let options = ["--db", "ledger.sqlite", "--catalog", "Japan.storekit"]
            async let textRun = TipLedgerBinary.run(["report"] + options, in: directory.path)
            async let csvRun = TipLedgerBinary.run(["report", "--format", "csv"] + options, in: directory.path)
            async let jsonRun = TipLedgerBinary.run(["report", "--format", "json"] + options, in: directory.path)
            async let htmlRun = TipLedgerBinary.run(["report", "--format", "html"] + options, in: directory.path)
            let (text, csv, json, html) = try await (textRun, csvRun, jsonRun, htmlRun)
            for run in [text, csv, json, html] {
                #expect(run.exited(0), "\(run.summary)")
                #expect(run.err.isEmpty, "no product shares a name: \(run.err)")
            }

            #expect(!text.out.contains("()"), "\(text.out)")
            let rows = try #require(try json.json()["rows"] as? [[String: Any]])
            let names = Dictionary(uniqueKeysWithValues: zip(Self.products, Self.japaneseNames))
            #expect(rows.count == 3)
            for row in rows {
                let product = try #require(row["product"] as? String)
                let name = try #require(names[product])
                #expect(row["productName"] as? String == name)
                #expect(text.out.contains("\(product) (\(name))"), "\(text.out)")
                #expect(csv.outLines.contains { $0.contains(",\(product),\(name),JPY,") }, "\(csv.out)")
                #expect(html.out.contains(name), "the page names \(product)")
            }
            #expect(csv.outLines.first?.hasPrefix("environment,product,product_name,currency,") == true)
        }
    }

    /// Two tiers named alike: each command that reads the catalog says so once, and the page
    /// tells them apart by their ids.
    @Test func productsThatShareADisplayNameAreSaidOnStandardError() async throws {
        try await TemporaryDirectory.with { directory in
            let mistaken = try String(contentsOfFile: CatalogTests.example, encoding: .utf8)
                .replacingOccurrences(of: "\"displayName\" : \"Large Tip\"", with: "\"displayName\" : \"Medium Tip\"")
            try directory.write(mistaken, to: "Mistaken.storekit")
            let ids = ["com.example.tipjar.small", "com.example.tipjar.medium", "com.example.tipjar.large"]
            try await Self.record(catalog: "Mistaken.storekit", products: ids, in: directory)
            let options = ["--db", "ledger.sqlite", "--catalog", "Mistaken.storekit"]
            let warning =
                "warning: Mistaken.storekit: 2 products are named \"Medium Tip\" (com.example.tipjar.medium, "
                + "com.example.tipjar.large); tell them apart by their ids"

            for arguments in [
                ["report"], ["report", "--format", "html"],
                ["restore", "--account", "7e3fb20b-4cdb-47cc-936d-99d65f608138"], ["pending"],
            ] {
                let run = try await TipLedgerBinary.run(arguments + options, in: directory.path)
                #expect(run.exited(0), "\(run.summary)")
                #expect(run.errLines == [warning], "\(arguments)")
            }
            let page = try await TipLedgerBinary.run(["report", "--format", "html"] + options, in: directory.path)
            #expect(page.out.contains("Medium Tip (com.example.tipjar.medium)"), "the page tells the two apart")
            #expect(page.out.contains("Medium Tip (com.example.tipjar.large)"), "the page tells the two apart")
        }
    }
}
