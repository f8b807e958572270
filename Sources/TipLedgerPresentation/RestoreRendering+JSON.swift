// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension RestoreRendering {
    /// `{"account":...,"transactions":[...],"totals":[...]}`; by app transaction, `account` is
    /// null and `appTransactionId` follows it, so the contract's fields are always there.
    public var json: String {
        var writer = JSONWriter()
        writer.object { object in
            switch key {
            case .account(let account): object.field("account", account)
            case .appTransactionId(let id):
                object.field("account", nil as String?)
                object.field("appTransactionId", id)
            }
            object.array("transactions", restore.transactions) { TransactionJSON.write($1, catalog: catalog, to: &$0) }
            object.array("totals", restore.totals) { entry, total in
                entry.field("environment", total.environment.rawValue)
                entry.field("currency", total.currency)
                entry.field("net_milli", total.netMilli)
            }
        }
        return writer.text
    }
}
