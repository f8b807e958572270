// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// A transaction as `restore`, `pending` and `GET /v1/accounts/{uuid}/transactions` list it in
/// JSON (docs/cli.md). Field names are part of the contract.
enum TransactionJSON {
    /// The members of one transaction object, in the documented order.
    static func write(
        _ record: TransactionRecord, catalog: StoreKitCatalog?, to object: inout JSONWriter.ObjectWriter
    ) {
        object.field("environment", record.environment.rawValue)
        object.field("transactionId", record.transactionId)
        object.field("originalTransactionId", record.originalTransactionId)
        object.field("productId", record.productId)
        if let name = catalog?.product(record.productId)?.displayName { object.field("productName", name) }
        object.field("purchaseDate", record.purchaseDateMilliseconds)
        object.field("quantity", record.quantity)
        object.field("price", record.priceMilli)
        object.field("currency", record.currency)
        object.field("storefront", record.storefront)
        object.field("state", record.state.rawValue)
        object.field("finished", record.finished)
        object.field("revocationDate", record.revocationDateMilliseconds)
        object.field("revocationReason", record.revocationReason)
        object.field("appTransactionId", record.appTransactionId)
        object.field("net_milli", record.netMilli)
    }
}
