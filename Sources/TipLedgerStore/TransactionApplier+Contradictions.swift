// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension TransactionApplier {
    /// The rejection of `transaction` when it contradicts `row`, its transaction's row; nil
    /// when it does not.
    func contradiction(of transaction: VerifiedTransaction, row: TransactionAmounts) throws -> VerificationError? {
        guard let fields = try contradictedFields(transaction, rowid: row.rowid) else { return nil }
        return VerificationError(
            .invalidPayload,
            "it contradicts the recorded transaction \(transaction.transactionId ?? "?"): its "
                + "\(fields.joined(separator: ", ")) \(fields.count == 1 ? "differs" : "differ")")
    }

    /// The fields fixed at purchase that `transaction` gives otherwise than the row `rowid`
    /// holds, by their names in Apple's model; nil when none does. A field either side lacks is
    /// not compared. Every signed version of a transaction carries the same purchase: one that
    /// does not would leave the row and its newest evidence telling different stories.
    private func contradictedFields(_ transaction: VerifiedTransaction, rowid: Int64) throws -> [String]? {
        let fields = Self.purchaseFields
        guard
            let recorded = try database.queryOne(
                Self.selectPurchase, rowid, row: { row in fields.indices.map { row.text(Int32($0)) } })
        else { return nil }
        let differing = zip(fields, recorded).compactMap { field, stored -> String? in
            // Product and bundle are stored as "" when the payload had none.
            guard let value = field.value(transaction.payload), let stored, !stored.isEmpty, value != stored else {
                return nil
            }
            return field.name
        }
        return differing.isEmpty ? nil : differing
    }

    /// The fields fixed at purchase: each one's name in Apple's model, its column, and the
    /// payload's value as the column holds it (SQLite reads an integer column as decimal text).
    private static let purchaseFields:
        [(name: String, column: String, value: @Sendable (JWSTransactionDecodedPayload) -> String?)] = [
            ("productId", "product_id", { $0.productId }), ("bundleId", "bundle_id", { $0.bundleId }),
            ("price", "price_milli", { $0.price.map(String.init) }), ("currency", "currency", { $0.currency }),
            ("quantity", "quantity", { $0.quantity.map(String.init) }),
            ("purchaseDate", "purchase_date_ms", { $0.purchaseDate.map { String($0.wholeMilliseconds) } }),
            ("originalTransactionId", "original_transaction_id", { $0.originalTransactionId }),
            ("appAccountToken", "account", { $0.appAccountToken?.lowercased() }),
            ("appTransactionId", "app_transaction_id", { $0.appTransactionId }),
        ]

    /// `purchaseFields`' columns of one transaction row, in their order.
    private static let selectPurchase =
        "SELECT \(purchaseFields.map(\.column).joined(separator: ", ")) FROM transactions WHERE id = ?"
}
