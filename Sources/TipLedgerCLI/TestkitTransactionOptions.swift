// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import FoundationEssentials
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// The transaction fields `testkit transaction` and `testkit notification` take, and the
/// realistic variety `--count` produces.
struct TestkitTransactionOptions {
    var productId: String?
    var account: String??
    var quantity: Int?
    var priceMilli: Int64?
    var currency: String?
    var storefront: String?
    var purchaseDate: Int64?
    var signedDate: Int64?
    var transactionId: String?
    var originalTransactionId: String?
    var appTransactionId: String?

    /// Storefronts testkit knows: (code, storefrontId, currency).
    static let storefronts: [(String, String, String)] = [
        ("USA", "143441", "USD"), ("GBR", "143444", "GBP"), ("DEU", "143443", "EUR"), ("FRA", "143442", "EUR"),
        ("JPN", "143462", "JPY"), ("CAN", "143455", "CAD"), ("AUS", "143460", "AUD"),
    ]

    /// The tiers priced when no catalog is given.
    static let defaultTiers: [(String, Int64)] = [
        ("com.example.tipjar.small", 990), ("com.example.tipjar.medium", 2990), ("com.example.tipjar.large", 9990),
    ]

    init(parsing scanner: inout ArgumentScanner, command: String) throws {
        productId = try scanner.value("--product")
        if let account = try scanner.value("--account") {
            if account == "none" {
                self.account = .some(nil)
            } else {
                guard Ledger.isAccountToken(account) else {
                    throw CLIError.usage("--account takes a UUID or 'none', not '\(account)'", command: command)
                }
                self.account = .some(account.lowercased())
            }
        }
        quantity = try scanner.integer("--quantity", in: 1...1000)
        if let price = try scanner.value("--price") {
            guard let milli = StoreKitCatalog.decimalMilliunits(price) else {
                throw CLIError.usage("--price takes a decimal amount such as 2.97, not '\(price)'", command: command)
            }
            priceMilli = milli
        }
        currency = try scanner.value("--currency").map { $0.uppercased() }
        if let currency, !JWSTransactionDecodedPayload.isCurrencyCode(currency) {
            throw CLIError.usage("--currency takes an ISO 4217 code such as USD", command: command)
        }
        storefront = try scanner.value("--storefront").map { $0.uppercased() }
        if let storefront, !Self.storefronts.contains(where: { $0.0 == storefront }) {
            throw CLIError.usage(
                "--storefront takes one of \(Self.storefronts.map(\.0).joined(separator: ", "))", command: command)
        }
        purchaseDate = try TestkitCommand.date(scanner.value("--purchase-date"), option: "--purchase-date")
        signedDate = try TestkitCommand.date(scanner.value("--signed-date"), option: "--signed-date")
        transactionId = try scanner.value("--transaction-id")
        originalTransactionId = try scanner.value("--original-transaction-id")
        appTransactionId = try scanner.value("--app-transaction-id")
    }

    /// The products to choose from: the catalog's, else three default tiers.
    static func tiers(_ catalog: StoreKitCatalog?) -> [(String, Int64)] {
        catalog.map { $0.products.map { ($0.productId, $0.priceMilli) } } ?? defaultTiers
    }

    /// The currency `tiers` are priced in: that of the catalog's storefront when testkit knows
    /// it, else dollars.
    static func tierCurrency(_ catalog: StoreKitCatalog?) -> String {
        knownStorefront(catalog?.storefront)?.2 ?? "USD"
    }

    static func knownStorefront(_ code: String?) -> (String, String, String)? {
        code.flatMap { code in storefronts.first { $0.0 == code } }
    }

    /// One transaction from these options, defaults filled in from `random` and the catalog.
    func transaction(
        bundleId: String, environment: AppStoreEnvironment, catalog: StoreKitCatalog?, now: Int64,
        random: inout SeededGenerator
    ) throws -> TestTransaction {
        let tiers = Self.tiers(catalog)
        let product = productId ?? tiers[0].0
        let quantity = self.quantity ?? 1
        // The catalog's own storefront unless told otherwise, so its prices need no conversion.
        let storefront =
            Self.knownStorefront(self.storefront) ?? Self.knownStorefront(catalog?.storefront) ?? Self.storefronts[0]
        let currency = self.currency ?? storefront.2
        if let priceMilli, priceMilli % CurrencyUnit.minorUnitMilli(of: currency) != 0 {
            let decimals = CurrencyUnit.decimals(of: currency)
            throw CLIError.usage(
                decimals == 0
                    ? "--price in \(currency) is a whole amount (\(currency) has no minor unit)"
                    : "--price in \(currency) has at most \(decimals) decimals", command: TestkitCommand.name)
        }
        var price = priceMilli
        if price == nil, let unit = tiers.first(where: { $0.0 == product })?.1 {
            guard let local = Self.localPrice(unit, from: Self.tierCurrency(catalog), to: currency) else {
                throw CLIError.usage(
                    "testkit cannot price \(product) in \(currency): give --price", command: TestkitCommand.name)
            }
            price = local * Int64(quantity)
        }
        guard let price else {
            throw CLIError.usage(
                "no price for \(product): give --price, or --catalog with that product", command: TestkitCommand.name)
        }
        let purchaseDate = self.purchaseDate ?? now
        var fields = TestTransaction(
            transactionId: transactionId ?? random.transactionId(), bundleId: bundleId, productId: product,
            price: price,
            currency: currency, storefront: storefront.0, storefrontId: storefront.1, environment: environment.rawValue,
            purchaseDate: purchaseDate, appAccountToken: account ?? random.uuid())
        fields.quantity = Int32(quantity)
        if let type = catalog?.product(product)?.transactionType { fields.type = type }
        fields.signedDate = signedDate ?? purchaseDate
        fields.originalTransactionId = originalTransactionId ?? fields.transactionId
        fields.appTransactionId = appTransactionId
        return fields
    }

    /// A tier's price, `milli` in `source`, in `currency`: as it is in its own currency; else
    /// the same figures, except yen, at about 160 to the dollar. Nil in a currency whose minor
    /// unit the figures do not fit (a whole-unit currency testkit has no rate for).
    static func localPrice(_ milli: Int64, from source: String, to currency: String) -> Int64? {
        let unit = CurrencyUnit.minorUnitMilli(of: currency)
        guard source != currency else { return milli % unit == 0 ? milli : nil }
        // ¥160 → 0.99, ¥480 → 2.99: the dollar figures the yen ones were made from.
        let dollars = source == "JPY" ? max(10, (milli / 160 + 5) / 10 * 10 - 10) : milli
        if currency == "JPY" {
            // 0.99 → ¥160, 2.99 → ¥480, 9.99 → ¥1600: about 160 yen a dollar, rounded to 10 yen.
            return ((dollars + 10) * 160 / 1000 + 5) / 10 * 10 * 1000
        }
        return dollars % unit == 0 ? dollars : nil
    }
}

/// Realistic tips for `testkit transaction --count`: a pool of accounts (each with its own app
/// transaction id, as one install has), tiers by popularity, storefronts (mostly the US),
/// quantities, and purchases at an even pace over the window, their ids increasing with time as
/// the App Store numbers them. Deterministic for a given seed; produced in chunks so memory
/// stays flat for millions of tips.
struct TipGenerator {
    let options: TestkitTransactionOptions
    let bundleId: String
    let environment: AppStoreEnvironment
    let tiers: [(String, Int64)]
    /// The currency `tiers` are priced in.
    let tierCurrency: String
    /// The `type` signed for each of the catalog's products; a product not in it is a tip
    /// (`Consumable`).
    let types: [String: String]
    let total: Int
    let start: Int64
    let step: Double
    private let accounts: [(account: String, appTransactionId: String)]
    private var random: SeededGenerator
    private var produced = 0
    private var nextId: UInt64

    init(
        options: TestkitTransactionOptions, count: Int, accounts: Int, days: Int, end: Int64, bundleId: String,
        environment: AppStoreEnvironment, catalog: StoreKitCatalog?, random: SeededGenerator
    ) {
        self.options = options
        self.bundleId = bundleId
        self.environment = environment
        self.tiers = TestkitTransactionOptions.tiers(catalog)
        self.tierCurrency = TestkitTransactionOptions.tierCurrency(catalog)
        self.types = Dictionary(
            (catalog?.products ?? []).compactMap { product in product.transactionType.map { (product.productId, $0) } },
            uniquingKeysWith: { first, _ in first })
        self.total = count
        let span = Int64(days) * 86_400_000
        self.start = end - span
        self.step = Double(span) / Double(max(count, 1))
        var random = random
        self.accounts = (0..<accounts).map { _ in
            (
                random.uuid(),
                String(UInt64.random(in: 700_000_000_000_000_000...799_999_999_999_999_999, using: &random))
            )
        }
        self.nextId = UInt64.random(in: 2_000_000_000_000_000...2_900_000_000_000_000, using: &random)
        self.random = random
    }

    /// The next `count` tips (fewer at the end).
    mutating func next(_ count: Int) -> [TestTransaction] {
        let storefronts = TestkitTransactionOptions.storefronts
        let fixedStorefront = options.storefront.flatMap { code in storefronts.first { $0.0 == code } }
        var tips: [TestTransaction] = []
        while tips.count < count && produced < total {
            nextId += UInt64.random(in: 1...40, using: &random)
            let tierRoll = Int.random(in: 0..<10, using: &random)
            let tier = tiers[min(tierRoll < 6 ? 0 : tierRoll < 9 ? 1 : 2, tiers.count - 1)]
            let storefrontRoll = Int.random(in: 0..<20, using: &random)
            let storefront =
                fixedStorefront ?? storefronts[storefrontRoll < 10 ? 0 : (storefrontRoll % (storefronts.count - 1)) + 1]
            let currency = options.currency ?? storefront.2
            let quantityRoll = Int.random(in: 0..<10, using: &random)
            let quantity = quantityRoll < 8 ? 1 : quantityRoll == 8 ? 2 : Int.random(in: 3...5, using: &random)
            let jitter = Int64(Double.random(in: 0..<1, using: &random) * step)
            let purchaseDate = start + Int64(Double(produced) * step) + jitter
            // One tip in twenty comes from an app that sets no account token.
            let owner = Int.random(in: 0..<20, using: &random) == 0 ? nil : accounts.randomElement(using: &random)
            var fields = TestTransaction(
                transactionId: String(nextId), bundleId: bundleId, productId: tier.0,
                // `TestkitTransactionCommand` made sure every tier has a price in a fixed currency.
                price: (TestkitTransactionOptions.localPrice(tier.1, from: tierCurrency, to: currency) ?? 0)
                    * Int64(quantity),
                currency: currency, storefront: storefront.0, storefrontId: storefront.1,
                environment: environment.rawValue, purchaseDate: purchaseDate, appAccountToken: owner?.account)
            fields.quantity = Int32(quantity)
            if let type = types[tier.0] { fields.type = type }
            fields.appTransactionId =
                owner?.appTransactionId
                ?? String(UInt64.random(in: 700_000_000_000_000_000...799_999_999_999_999_999, using: &random))
            tips.append(fields)
            produced += 1
        }
        return tips
    }
}
