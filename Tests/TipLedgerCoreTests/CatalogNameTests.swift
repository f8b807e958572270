// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore

/// The name a catalog gives a product: the one of the catalog's own locale, else any that is not
/// blank, else the reference name; never an empty one. Real catalogs are messy: a Japanese app
/// leaves its en_US names empty, another names two tiers alike.
@Suite struct CatalogNameTests {
    /// A `.storekit` file written for `locale`, with one product per entry: its id, its
    /// localizations (locale, display name) and its reference name.
    static func catalog(locale: String?, _ products: [(id: String, names: [(String, String)], reference: String?)])
        throws -> StoreKitCatalog
    {
        let entries = products.map { product in
            let localizations = product.names.map { #"{"locale": "\#($0.0)", "displayName": "\#($0.1)"}"# }
            let reference = product.reference.map { #", "referenceName": "\#($0)""# } ?? ""
            return #"""
                {"productID": "\#(product.id)", "displayPrice": "100", "type": "Consumable",
                 "localizations": [\#(localizations.joined(separator: ", "))]\#(reference)}
                """#
        }
        let settings = locale.map { #""_locale": "\#($0)", "_storefront": "JPN""# } ?? #""_storefront": "JPN""#
        let text = #"{"products": [\#(entries.joined(separator: ", "))], "settings": {\#(settings)}}"#
        return try StoreKitCatalog(json: Array(text.utf8))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let locale: String?
        let names: [(String, String)]
        let reference: String?
        let expected: String?
        var testDescription: String { name }
    }

    static let cases = [
        Case(
            name: "a Japanese catalog with empty en_US names", locale: "ja",
            names: [("en_US", ""), ("ja", "小さなチップ")], reference: "Small", expected: "小さなチップ"),
        Case(
            name: "the catalog's own locale before the first", locale: "de_DE",
            names: [("en_US", "Small Tip"), ("de_DE", "Kleines Trinkgeld")], reference: nil,
            expected: "Kleines Trinkgeld"),
        Case(
            name: "the same language in another region", locale: "ja",
            names: [("en_US", "Small Tip"), ("ja_JP", "小さなチップ")], reference: nil, expected: "小さなチップ"),
        Case(
            name: "any name when the own locale's is blank", locale: "en_US",
            names: [("en_US", "  "), ("fr_FR", "Petit pourboire")], reference: "Small", expected: "Petit pourboire"),
        Case(
            name: "the reference name when every display name is empty", locale: "ja",
            names: [("en_US", ""), ("ja", "")], reference: "Small tip (JP)", expected: "Small tip (JP)"),
        Case(
            name: "no name at all rather than an empty one", locale: "ja", names: [("en_US", "")], reference: " ",
            expected: nil),
        Case(
            name: "a catalog that names no locale", locale: nil, names: [("en_US", ""), ("ko", "작은 팁")],
            reference: nil, expected: "작은 팁"),
    ]

    @Test(arguments: cases)
    func aProductIsNamedFromTheBestLocalizationItHas(_ given: Case) throws {
        let catalog = try Self.catalog(
            locale: given.locale, [(id: "art.nightthought.tip.small", names: given.names, reference: given.reference)])
        #expect(catalog.product("art.nightthought.tip.small")?.displayName == given.expected)
        #expect(catalog.locale == given.locale)
    }

    /// Two tiers named alike (the large one called "Medium Tip" by mistake) are listed, with
    /// their ids in the file's order; products named apart, or not named, are not.
    @Test func namesTwoProductsShareAreListed() throws {
        let catalog = try Self.catalog(
            locale: "en_US",
            [
                (id: "tip.small", names: [("en_US", "Small Tip")], reference: nil),
                (id: "tip.medium", names: [("en_US", "Medium Tip")], reference: nil),
                (id: "tip.large", names: [("en_US", "Medium Tip")], reference: "Large"),
                (id: "tip.huge", names: [("en_US", "")], reference: nil),
                (id: "tip.giant", names: [], reference: nil),
            ])

        let shared = catalog.sharedDisplayNames
        #expect(shared.map(\.name) == ["Medium Tip"])
        #expect(shared.map(\.productIds) == [["tip.medium", "tip.large"]])
    }
}
