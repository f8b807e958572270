// SPDX-License-Identifier: GPL-3.0-or-later

extension PendingRendering {
    /// A table of the transactions, oldest first.
    public var text: String {
        guard !transactions.isEmpty else { return "no pending transactions\n" }
        return TransactionTable.make(transactions, catalog: catalog).render()
    }
}
