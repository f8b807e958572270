// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

/// The transactions verified but not finished, as `pending` shows them (docs/cli.md): in JSON
/// and in text, one file per format.
public struct PendingRendering {
    let transactions: [TransactionRecord]
    /// Names products, when given.
    let catalog: StoreKitCatalog?

    public init(transactions: [TransactionRecord], catalog: StoreKitCatalog?) {
        self.transactions = transactions
        self.catalog = catalog
    }
}
