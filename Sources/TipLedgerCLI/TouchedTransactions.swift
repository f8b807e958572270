// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// Transactions that recording a batch may change, by environment and id.
struct TouchedTransactions {
    private struct Key: Hashable {
        let environment: AppStoreEnvironment
        let transactionId: String
    }

    private var keys: Set<Key> = []

    mutating func insert(_ payload: VerifiedPayload) {
        let id: String? =
            switch payload {
            case .transaction(let transaction): transaction.transactionId
            case .notification(let notification): notification.transaction?.transactionId
            case .renewalInfo, .appTransaction: nil
            }
        if let id { keys.insert(Key(environment: payload.environment, transactionId: id)) }
    }

    mutating func formUnion(_ other: TouchedTransactions) {
        keys.formUnion(other.keys)
    }

    func contains(_ known: KnownToken) -> Bool {
        guard !keys.isEmpty, let id = known.result.transactionId else { return false }
        return keys.contains(Key(environment: known.environment, transactionId: id))
    }
}
