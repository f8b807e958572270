// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

/// A customer's tips as `restore` and `GET /v1/accounts/{uuid}/transactions` show them
/// (docs/cli.md, docs/http.md): in JSON, the same from both, and in text, one file per format.
public struct RestoreRendering {
    /// Whose tips a restore lists.
    public enum Key: Sendable {
        case account(String)
        case appTransactionId(String)
    }

    let restore: Restore
    let key: Key
    /// Names products, when given.
    let catalog: StoreKitCatalog?

    public init(restore: Restore, key: Key, catalog: StoreKitCatalog?) {
        self.restore = restore
        self.key = key
        self.catalog = catalog
    }
}
