// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerStore

/// What `sync` says of a walk (docs/app-store-api.md): a line per page once its records are
/// committed (so a line printed is a page recorded), a line per rejected payload, and a summary
/// per walk; as text, or one JSON object per line; one file per format.
public struct SyncRendering {
    let walk: SyncCursor.Walk
    /// The transaction id a customer's walk was asked with.
    let transactionId: String?

    public init(walk: SyncCursor.Walk, transactionId: String?) {
        self.walk = walk
        self.transactionId = transactionId
    }

    /// What the walk's pages hold.
    var items: String { walk == .notificationHistory ? "notifications" : "transactions" }
}
