// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// Transactions as a text table, for `restore` and `pending`.
enum TransactionTable {
    /// A text table of transactions.
    static func make(_ records: [TransactionRecord], catalog: StoreKitCatalog?) -> TextTable {
        var table = TextTable(
            headers: ["purchased (UTC)", "environment", "transaction", "product", "qty", "price", "state"],
            rightAligned: [4, 5])
        for record in records {
            var product = record.productId
            if let name = catalog?.product(record.productId)?.displayName { product += " (\(name))" }
            table.add([
                record.purchaseDateMilliseconds.map { ISODate.minutes($0) } ?? "-", record.environment.rawValue,
                record.transactionId, product, String(record.quantity),
                record.priceMilli.map { "\(Money.decimal($0, currency: record.currency)) \(record.currency ?? "")" }
                    ?? "-",
                record.state.rawValue,
            ])
        }
        return table
    }
}

/// Short UTC timestamps for tables.
enum ISODate {
    /// `2025-10-01 07:08` for milliseconds since 1970.
    static func minutes(_ milliseconds: Int64) -> String {
        let text = AppleDate(wholeMilliseconds: milliseconds).description  // 2025-10-01T07:08:38.835Z
        return String(text.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }
}

extension String {
    func replacingOccurrences(of target: Character, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
