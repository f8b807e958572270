// SPDX-License-Identifier: GPL-3.0-or-later

/// The products of an Xcode StoreKit configuration file (`.storekit`, JSON): ids, reference
/// names, display names and prices. Used to price test tips and to show names beside ids.
///
/// Reads `products` and the subscriptions inside `subscriptionGroups`; other keys are ignored.
public struct StoreKitCatalog: Sendable {
    /// One product of the catalog.
    public struct Product: Sendable, Equatable {
        public let productId: String
        package let referenceName: String?
        /// The name to show beside the id, never empty: the display name of the catalog's own
        /// locale (`settings._locale`), else the first display name of any localization that is
        /// not blank, else the reference name; nil when all of them are blank. An app sold in
        /// Japan leaves its en_US names empty, and a catalog may name only some locales.
        public let displayName: String?
        /// `displayPrice` in milliunits (`"0.99"` → 990).
        public let priceMilli: Int64
        /// The file's type name: `Consumable`, `NonConsumable`, `RecurringSubscription`, ...
        public let type: String?

        /// The `type` Apple signs in a transaction of this product (`Non-Consumable` for the
        /// file's `NonConsumable`, ...), or nil for a type the file names otherwise.
        public var transactionType: String? {
            switch type {
            case "Consumable": ProductType.consumable.rawValue
            case "NonConsumable": ProductType.nonConsumable.rawValue
            case "RecurringSubscription": ProductType.autoRenewableSubscription.rawValue
            case "NonRenewingSubscription": ProductType.nonRenewingSubscription.rawValue
            default: nil
            }
        }
    }

    public let products: [Product]
    /// The storefront the file's prices are for (`settings._storefront`), e.g. `USA`.
    public let storefront: String?
    /// The locale the file is written for (`settings._locale`), e.g. `en_US` or `ja`.
    package let locale: String?

    /// Why a catalog could not be read.
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses a `.storekit` file's bytes.
    public init(json bytes: [UInt8]) throws(Error) {
        let root: JSONObject
        do {
            guard case .object(let members) = try JSONParser.parse(bytes) else {
                throw Error(description: "the file is not a JSON object")
            }
            root = members
        } catch let error as JSONSyntaxError {
            throw Error(description: "the file is not JSON: \(error)")
        } catch let error as Error {
            throw error
        } catch {
            throw Error(description: "\(error)")
        }
        var entries: [JSONValue] = []
        if case .array(let list)? = root["products"] { entries += list }
        if case .array(let groups)? = root["subscriptionGroups"] {
            for group in groups {
                if case .array(let list)? = group.objectValue?["subscriptions"] { entries += list }
            }
        }
        if case .array(let list)? = root["nonRenewingSubscriptions"] { entries += list }
        guard root["products"] != nil || root["subscriptionGroups"] != nil || root["nonRenewingSubscriptions"] != nil
        else {
            throw Error(description: "the file has no \"products\"; is it an Xcode .storekit file?")
        }
        let settings = root["settings"]?.objectValue
        let locale = settings?["_locale"]?.stringValue
        var products: [Product] = []
        for (index, entry) in entries.enumerated() {
            products.append(try Self.product(entry, index: index, locale: locale))
        }
        guard !products.isEmpty else { throw Error(description: "the catalog has no products") }
        var seen: Set<String> = []
        for product in products where !seen.insert(product.productId).inserted {
            throw Error(description: "product \(product.productId) appears twice")
        }
        self.products = products
        self.locale = locale
        storefront = settings?["_storefront"]?.stringValue
    }

    private static func product(_ entry: JSONValue, index: Int, locale: String?) throws(Error) -> Product {
        guard let fields = entry.objectValue else { throw Error(description: "product \(index + 1) is not an object") }
        guard let id = fields["productID"]?.stringValue, !id.isEmpty else {
            throw Error(description: "product \(index + 1) has no productID")
        }
        guard let priceText = fields["displayPrice"]?.stringValue, let price = decimalMilliunits(priceText) else {
            throw Error(description: "product \(id) has no displayPrice like \"0.99\"")
        }
        var localizations: [(locale: String?, name: String)] = []
        if case .array(let entries)? = fields["localizations"] {
            localizations = entries.compactMap { entry in
                guard let fields = entry.objectValue, let name = fields["displayName"]?.stringValue else { return nil }
                return (fields["locale"]?.stringValue, name)
            }
        }
        let referenceName = fields["referenceName"]?.stringValue
        return Product(
            productId: id, referenceName: referenceName,
            displayName: displayName(localizations, locale: locale, referenceName: referenceName), priceMilli: price,
            type: fields["type"]?.stringValue)
    }

    /// The name of the localization for `locale` (the same language will do: `ja_JP` for `ja`),
    /// else of the first one whose name is not blank, else `referenceName`; nil when all are blank.
    static func displayName(
        _ localizations: [(locale: String?, name: String)], locale: String?, referenceName: String?
    ) -> String? {
        let named = localizations.filter { !isBlank($0.name) }
        let own = locale.flatMap { locale in
            named.first { $0.locale == locale }
                ?? named.first { $0.locale.map { language(of: $0) } == language(of: locale) }
        }
        if let name = (own ?? named.first)?.name { return name }
        return referenceName.flatMap { isBlank($0) ? nil : $0 }
    }

    /// `ja` for `ja_JP`, `ja-JP` or `ja`, in lower case.
    private static func language(of locale: String) -> String {
        String(locale.prefix { $0 != "_" && $0 != "-" }).lowercased()
    }

    private static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }

    /// Display names that two or more products share, each with those products' ids in the
    /// file's order: a report could not tell them apart by name. Names compare as written.
    public var sharedDisplayNames: [(name: String, productIds: [String])] {
        var ids: [String: [String]] = [:]
        var order: [String] = []
        for product in products {
            guard let name = product.displayName else { continue }
            if ids[name] == nil { order.append(name) }
            ids[name, default: []].append(product.productId)
        }
        return order.compactMap { name in ids[name].flatMap { $0.count > 1 ? (name, $0) : nil } }
    }

    /// The product with `productId`, or nil.
    public func product(_ productId: String) -> Product? {
        products.first { $0.productId == productId }
    }

    /// `"9.99"` → 9990; nil unless a non-negative decimal with at most three fraction digits.
    public static func decimalMilliunits(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].utf8.count <= 12,
            parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let whole = Int64(parts[0])
        else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int64(digits)
            else { return nil }
            fraction = value * [100, 10, 1][digits.count - 1]
        }
        return whole * 1000 + fraction
    }
}
