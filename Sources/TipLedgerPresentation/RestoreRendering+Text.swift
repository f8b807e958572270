// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension RestoreRendering {
    /// Who, how many tips, a table of them, and the net totals per environment and currency.
    public var text: String {
        let who: String
        switch key {
        case .account(let account): who = "account \(account)"
        case .appTransactionId(let id): who = "app transaction \(id)"
        }
        // The totals count every tip; a listed tip counts its net amount.
        struct Pot: Hashable {
            let environment: AppStoreEnvironment
            let currency: String?
        }
        var listed: [Pot: Int64] = [:]
        for tip in restore.transactions {
            listed[Pot(environment: tip.environment, currency: tip.currency), default: 0] += tip.netMilli
        }
        var totals = TextTable(headers: ["net total", "environment", "currency"], rightAligned: [0])
        var countsUnlisted = false
        for total in restore.totals {
            let shown = listed[Pot(environment: total.environment, currency: total.currency)]
            // A currency of only fully refunded or revoked tips, none listed, adds nothing to say.
            if shown == nil && total.netMilli == 0 { continue }
            countsUnlisted = countsUnlisted || total.netMilli != shown ?? 0
            totals.add([
                Money.decimal(total.netMilli, currency: total.currency), total.environment.rawValue,
                total.currency ?? "-",
            ])
        }
        let leftOut =
            restore.unlisted == 0
            ? "" : " (\(restore.unlisted) refunded or revoked left out; --all lists them)"
        guard !restore.transactions.isEmpty || !totals.rows.isEmpty else {
            return "\(who): no tips\(restore.totals.isEmpty ? "" : leftOut)\n"
        }
        let count = restore.transactions.count
        let tips = count == 0 ? "no tips listed" : "\(count) tip\(count == 1 ? "" : "s")"
        var text = "\(who): \(tips)\(leftOut)\n"
        if count > 0 {
            text += TransactionTable.make(restore.transactions, catalog: catalog).render(indent: "  ") + "\n"
        }
        text += totals.render(indent: "  ")
        if countsUnlisted {
            text += "  (the totals include what partly refunded tips still count; --all lists them)\n"
        }
        return text
    }
}
