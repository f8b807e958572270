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
