// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension PendingRendering {
    /// `{"transactions":[...]}`.
    public var json: String {
        var writer = JSONWriter()
        writer.object { object in
            object.array("transactions", transactions) { TransactionJSON.write($1, catalog: catalog, to: &$0) }
        }
        return writer.text
    }
}
