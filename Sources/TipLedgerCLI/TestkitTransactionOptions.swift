// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import FoundationEssentials
internal import TipLedgerCore

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
                guard UUID(uuidString: account) != nil else {
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
        if let currency, currency.utf8.count != 3 || !currency.allSatisfy(\.isLetter) {
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

    /// One transaction from these options, defaults filled in from `random` and the catalog.
    func transaction(
        bundleId: String, environment: AppStoreEnvironment, catalog: StoreKitCatalog?, now: Int64,
        random: inout SeededGenerator
    ) throws -> TestTransaction {
        let tiers = Self.tiers(catalog)
        let product = productId ?? tiers[0].0
        let quantity = self.quantity ?? 1
        let storefront = Self.storefronts.first { $0.0 == (self.storefront ?? "USA") }!
        let currency = self.currency ?? storefront.2
        var price = priceMilli
        if price == nil, let unit = tiers.first(where: { $0.0 == product })?.1 {
            price = Self.localPrice(unit, currency: currency) * Int64(quantity)
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
        fields.signedDate = signedDate ?? purchaseDate
        fields.originalTransactionId = originalTransactionId ?? fields.transactionId
        fields.appTransactionId = appTransactionId
        return fields
    }

    /// A tier's price in `currency`: the same figures as in dollars, except yen (no minor unit).
    static func localPrice(_ dollarsMilli: Int64, currency: String) -> Int64 {
        guard currency == "JPY" else { return dollarsMilli }
        // 0.99 → ¥160, 2.99 → ¥480, 9.99 → ¥1600: about 160 yen a dollar, rounded to 10 yen.
        let yen = ((dollarsMilli + 10) * 160 / 1000 + 5) / 10 * 10
        return yen * 1000
    }

    /// `count` varied tips: a pool of accounts, tiers by popularity, storefronts, quantities,
    /// purchases spread over `days` before `end`. Deterministic for a given generator state.
    /// `--storefront` (and `--currency`), when given, hold for every tip.
    func varied(
        count: Int, accounts: Int, days: Int, end: Int64, bundleId: String, environment: AppStoreEnvironment,
        catalog: StoreKitCatalog?, random: inout SeededGenerator
    ) -> [TestTransaction] {
        let storefronts = Self.storefronts
        let fixedStorefront = storefront.flatMap { code in storefronts.first { $0.0 == code } }
        let tiers = Self.tiers(catalog)
        let pool = (0..<accounts).map { _ in random.uuid() }
        let span = Int64(days) * 86_400_000
        // The App Store numbers transactions in increasing order; so does testkit, from a random
        // start, with small random gaps.
        var nextId = UInt64.random(in: 2_000_000_000_000_000...2_900_000_000_000_000, using: &random)
        return (0..<count).map { _ in
            nextId += UInt64.random(in: 1...40, using: &random)
            // Small tips are the most common; storefront mostly the US.
            let tierRoll = Int.random(in: 0..<10, using: &random)
            let tier = tiers[min(tierRoll < 6 ? 0 : tierRoll < 9 ? 1 : 2, tiers.count - 1)]
            let storefrontRoll = Int.random(in: 0..<20, using: &random)
            let storefront =
                fixedStorefront ?? storefronts[storefrontRoll < 10 ? 0 : (storefrontRoll % (storefronts.count - 1)) + 1]
            let currency = self.currency ?? storefront.2
            let quantityRoll = Int.random(in: 0..<10, using: &random)
            let quantity = quantityRoll < 8 ? 1 : quantityRoll == 8 ? 2 : Int.random(in: 3...5, using: &random)
            let purchaseDate = end - Int64.random(in: 0..<max(span, 1), using: &random)
            let account: String? =
                Int.random(in: 0..<20, using: &random) == 0 ? nil : pool.randomElement(using: &random)
            var fields = TestTransaction(
                transactionId: String(nextId), bundleId: bundleId, productId: tier.0,
                price: Self.localPrice(tier.1, currency: currency) * Int64(quantity), currency: currency,
                storefront: storefront.0, storefrontId: storefront.1, environment: environment.rawValue,
                purchaseDate: purchaseDate, appAccountToken: account)
            fields.quantity = Int32(quantity)
            fields.appTransactionId = String(
                UInt64.random(in: 700_000_000_000_000_000...799_999_999_999_999_999, using: &random))
            return fields
        }
    }
}

/// Signs many payloads on all cores, keeping their order.
enum ParallelSigner {
    static func sign(_ payloads: [[UInt8]], with signer: JWSSigner) throws -> [String] {
        let slots = SignedSlots(count: payloads.count)
        let workers = max(1, min(ProcessInfoLite.activeProcessorCount, payloads.count))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var index = worker
            while index < payloads.count {
                slots.set(index, Result { try signer.sign(payload: payloads[index]) })
                index += workers
            }
        }
        return try slots.values.map { try $0.get() }
    }
}

/// Slots each written by one worker, read after all are done (see `ResultSlots`).
private final class SignedSlots: @unchecked Sendable {
    /// Allocated once and never moved, unlike an array (see `ResultSlots`).
    private let storage: UnsafeMutableBufferPointer<Result<String, any Error>?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    func set(_ index: Int, _ value: Result<String, any Error>) {
        storage[index] = value
    }

    var values: [Result<String, any Error>] { storage.map { $0! } }
}
