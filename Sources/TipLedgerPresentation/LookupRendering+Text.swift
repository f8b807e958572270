// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension LookupRendering {
    /// The rejected payloads, one line each, for standard error.
    public var rejectionLines: [String] {
        outcomes.compactMap { outcome in
            guard case .rejected(let error) = outcome else { return nil }
            return "rejected: \(error.code.rawValue) (\(error.appleStatus)): \(error.message)"
        }
    }

    /// A table of the verified transactions with the state the ledger holds; empty when none
    /// verified.
    public var text: String {
        var table = TextTable(
            headers: ["purchased (UTC)", "environment", "transaction", "product", "qty", "price", "outcome"],
            rightAligned: [4, 5])
        for case .verified(let payload, let recording) in outcomes {
            guard let transaction = payload.transaction else { continue }
            let fields = transaction.payload
            var result = recording?.outcome.rawValue ?? "verified"
            if let state = recording?.state { result += " (\(state.rawValue))" }
            if fields.revocationDate != nil && recording == nil { result += " (refunded)" }
            table.add([
                fields.purchaseDate.map { ISODate.minutes($0.wholeMilliseconds) } ?? "-",
                transaction.environment.rawValue, transaction.transactionId ?? "-", fields.productId ?? "-",
                String(fields.quantity ?? 1),
                fields.price.map { "\(Money.decimal($0, currency: fields.currency)) \(fields.currency ?? "")" } ?? "-",
                result,
            ])
        }
        guard !table.rows.isEmpty else { return "" }
        return table.render() + (dryRun ? "dry run: nothing recorded\n" : "")
    }
}
