// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// Xcode `.storekit` catalogs through the binary: testkit prices tips from them, and report and
/// restore show their display names.
@Suite struct CatalogTests {
    static let example = "\(Fixtures.projectDirectory)/examples/TipProducts.storekit"

    /// A catalog product as the tests read it with Foundation's JSON parser.
    struct Product {
        let id: String
        let priceMilli: Int64
        let displayName: String
    }

    static func products(_ path: String) throws -> [Product] {
        let root = try JSONValue.object(try Data(contentsOf: URL(fileURLWithPath: path)))
        let entries = try #require(root["products"] as? [[String: Any]])
        return try entries.map { entry in
            let price = try #require(entry["displayPrice"] as? String)
            let parts = price.split(separator: ".")
            let fraction = parts.count > 1 ? String(parts[1]).padding(toLength: 3, withPad: "0", startingAt: 0) : "000"
            let localizations = try #require(entry["localizations"] as? [[String: Any]])
            return Product(
                id: try #require(entry["productID"] as? String),
                priceMilli: try #require(Int64(parts[0])) * 1000 + (try #require(Int64(fraction))),
                displayName: try #require(localizations.first?["displayName"] as? String))
        }
    }

    @Test func exampleCatalogPricesTipsAndNamesProducts() async throws {
        let keys = try await SharedInputs.shared.keys()
        let products = try Self.products(Self.example)
        #expect(
            products.map(\.id) == ["com.example.tipjar.small", "com.example.tipjar.medium", "com.example.tipjar.large"])
        try await TemporaryDirectory.with { directory in
            let signing = ["testkit", "transaction", "--keys", keys, "--bundle-id", SharedInputs.bundleId]
            let account = "0d9a1f5e-7c1b-4d8e-9f3a-2b6c8e4a1d07"
            var tokens: [String] = []
            for (index, product) in products.enumerated() {
                let quantity = index + 1
                let signed = try await TipLedgerBinary.run(
                    signing + [
                        "--catalog", Self.example, "--product", product.id, "--quantity", String(quantity),
                        "--account", account,
                    ], in: directory.path)
                try #require(signed.exited(0), "\(signed.summary)")
                let tip = try SignedTip(signed.out)
                #expect(tip.productId == product.id)
                #expect(tip.quantity == Int64(quantity))
                #expect(tip.price == product.priceMilli * Int64(quantity), "the price is the line total")
                #expect(tip.currency == "USD")
                tokens.append(signed.out)
            }
            let defaultProduct = try await TipLedgerBinary.run(
                signing + ["--catalog", Self.example], in: directory.path)
            #expect(try SignedTip(defaultProduct.out).productId == products[0].id, "the catalog's first product")

            let ledger = ["--db", "l.sqlite", "--catalog", Self.example] + SharedInputs.acceptingTestkit(keys: keys)
            let recording = try await TipLedgerBinary.run(
                ["verify"] + ledger, input: .text(tokens.joined()), in: directory.path)
            try #require(recording.exited(0), "\(recording.summary)")

            async let reportJSON = TipLedgerBinary.run(["report", "--format", "json"] + ledger, in: directory.path)
            async let reportText = TipLedgerBinary.run(["report"] + ledger, in: directory.path)
            async let restoreJSON = TipLedgerBinary.run(
                ["restore", "--account", account, "--format", "json"] + ledger, in: directory.path)
            async let restoreText = TipLedgerBinary.run(["restore", "--account", account] + ledger, in: directory.path)
            let (report, reportTable, restore, restoreTable) = try await (
                reportJSON, reportText, restoreJSON, restoreText
            )
            let names = Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0.displayName) })
            let rows = try #require(try report.json()["rows"] as? [[String: Any]])
            #expect(rows.count == 3)
            for row in rows {
                let id = try #require(row["product"] as? String)
                #expect(row["productName"] as? String == names[id])
            }
            let restored = try #require(try restore.json()["transactions"] as? [[String: Any]])
            #expect(restored.count == 3)
            for transaction in restored {
                let id = try #require(transaction["productId"] as? String)
                #expect(transaction["productName"] as? String == names[id])
            }
            for product in products {
                #expect(reportTable.out.contains("\(product.id) (\(product.displayName))"), "\(reportTable.out)")
                #expect(restoreTable.out.contains("\(product.id) (\(product.displayName))"), "\(restoreTable.out)")
            }
        }
    }

    @Test func testkitTakesItsPricesFromTheCatalogGiven() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            // The example's products with other ids and prices, so nothing can come from defaults.
            let changed = try String(contentsOfFile: Self.example, encoding: .utf8)
                .replacingOccurrences(of: "com.example.tipjar.", with: "org.example.jar.")
                .replacingOccurrences(of: "\"0.99\"", with: "\"1.49\"")
                .replacingOccurrences(of: "\"9.99\"", with: "\"19.5\"")
            let catalog = try directory.write(changed, to: "Changed.storekit")
            let products = try Self.products(catalog)
            let signed = try await TipLedgerBinary.run(
                [
                    "testkit", "transaction", "--keys", keys, "--catalog", "Changed.storekit", "--count", "40",
                    "--seed", "3",
                ],
                in: directory.path)
            try #require(signed.exited(0), "\(signed.summary)")
            let prices = Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0.priceMilli) })
            #expect(
                prices == [
                    "org.example.jar.small": 1490, "org.example.jar.medium": 2990, "org.example.jar.large": 19_500,
                ])
            for tip in try signed.outLines.map(SignedTip.init) {
                let unit = try #require(prices[tip.productId], "\(tip.productId) is not in the catalog")
                if tip.currency != "JPY" { #expect(tip.price == unit * tip.quantity) }
            }
        }
    }

    /// A catalog's prices are in its storefront's currency: a Japanese catalog signs yen as
    /// written, by default in its own storefront; another storefront gets the dollar figures they
    /// stand for; a currency testkit has no figures for is refused rather than mispriced.
    @Test func aCatalogIsPricedInItsStorefrontsCurrency() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let japanese = try String(contentsOfFile: Self.example, encoding: .utf8)
                .replacingOccurrences(of: "\"USA\"", with: "\"JPN\"")
                .replacingOccurrences(of: "\"0.99\"", with: "\"160\"")
                .replacingOccurrences(of: "\"2.99\"", with: "\"480\"")
                .replacingOccurrences(of: "\"9.99\"", with: "\"1600\"")
            try directory.write(japanese, to: "Japan.storekit")
            let sign = ["testkit", "transaction", "--keys", keys, "--catalog", "Japan.storekit"]
            async let own = TipLedgerBinary.run(sign, in: directory.path)
            async let american = TipLedgerBinary.run(sign + ["--storefront", "USA"], in: directory.path)
            async let korean = TipLedgerBinary.run(sign + ["--currency", "KRW"], in: directory.path)
            let (yen, dollars, won) = try await (own, american, korean)
            try #require(yen.exited(0) && dollars.exited(0), "\(yen.summary) \(dollars.summary)")
            let inYen = try SignedTip(yen.out)
            #expect([inYen.storefront, inYen.currency, String(inYen.price)] == ["JPN", "JPY", "160000"])
            let inDollars = try SignedTip(dollars.out)
            #expect([inDollars.storefront, inDollars.currency, String(inDollars.price)] == ["USA", "USD", "990"])
            #expect(won.exited(64), "\(won.summary)")
            #expect(won.errLines.first?.hasPrefix("error: testkit cannot price") == true, "\(won.err)")
        }
    }

    /// testkit signs each product's type as the catalog gives it, in Apple's words; a catalog
    /// of non-renewing subscriptions alone is a catalog too.
    @Test func testkitSignsEachProductsTypeFromTheCatalog() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            func entry(_ id: String, _ type: String) -> String {
                #"{"productID": "\#(id)", "displayPrice": "4.99", "type": "\#(type)", "referenceName": "\#(id)"}"#
            }
            let catalog = """
                {"products": [\(entry("tip", "Consumable")), \(entry("pro", "NonConsumable"))],
                 "subscriptionGroups": [{"subscriptions": [\(entry("monthly", "RecurringSubscription"))]}],
                 "nonRenewingSubscriptions": [\(entry("season", "NonRenewingSubscription"))],
                 "settings": {"_storefront": "USA"}}
                """
            try directory.write(catalog, to: "Mixed.storekit")
            try directory.write(
                #"{"nonRenewingSubscriptions": [\#(entry("season", "NonRenewingSubscription"))]}"#,
                to: "Seasons.storekit")
            let expected = [
                ("Mixed.storekit", "tip", "Consumable"), ("Mixed.storekit", "pro", "Non-Consumable"),
                ("Mixed.storekit", "monthly", "Auto-Renewable Subscription"),
                ("Mixed.storekit", "season", "Non-Renewing Subscription"),
                ("Seasons.storekit", "season", "Non-Renewing Subscription"),
            ]
            for (file, product, type) in expected {
                let result = try await TipLedgerBinary.run(
                    ["testkit", "transaction", "--keys", keys, "--catalog", file, "--product", product],
                    in: directory.path)
                try #require(result.exited(0), "\(result.summary)")
                let payload = try CompactJWS.payload(of: result.out.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(payload["type"] as? String == type, "\(file) \(product)")
            }
            // Many tips from the catalog: each product keeps its own type.
            let many = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--catalog", "Mixed.storekit", "--count", "40"],
                in: directory.path)
            try #require(many.exited(0), "\(many.summary)")
            let types = Set(
                try many.outLines.map { line in
                    let payload = try CompactJWS.payload(of: line)
                    return "\(payload["productId"] as? String ?? "?") \(payload["type"] as? String ?? "?")"
                })
            #expect(types.isSubset(of: Set(expected.prefix(4).map { "\($0.1) \($0.2)" })), "\(types)")
            #expect(types.count > 1, "\(types)")
        }
    }

    @Test func catalogWithNoProductsIsAClearError() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            try directory.write(#"{"products": [], "settings": {"_storefront": "USA"}}"#, to: "Empty.storekit")
            let result = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--catalog", "Empty.storekit"], in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            ExitStatusTests.expectErrorLines(
                result, containing: "Empty.storekit: the catalog has no products", hint: true)
        }
    }

    @Test(arguments: [
        "{\"products\": [", "[1, 2, 3]", "{\"identifier\": \"X\"}", "{\"products\": [{\"displayPrice\": \"0.99\"}]}",
    ])
    func malformedCatalogExitsWith64NamingTheFile(_ contents: String) async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            try directory.write(contents, to: "Malformed.storekit")
            let result = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--catalog", "Malformed.storekit"], in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            ExitStatusTests.expectErrorLines(result, containing: "Malformed.storekit: ", hint: true)
        }
    }
}
