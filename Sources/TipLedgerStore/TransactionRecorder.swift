// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Records a transaction the app submits (docs/ledger.md): its token as evidence, its signed
/// information applied, and the transaction finished when the app delivered it. Works inside
/// the open write transaction.
struct TransactionRecorder {
    let evidence: EvidenceStore
    let transactions: TransactionApplier

    func record(_ transaction: VerifiedTransaction, finish: Bool) throws -> RecordResult {
        guard let transactionId = transaction.transactionId else {
            throw Ledger.noTransactionId
        }
        var current = try transactions.amounts(transaction.environment.rawValue, transactionId)
        // A token stored before is a repeat, answered as one whatever it says (a notification
        // may have carried it for a transaction then unknown): only a new token is held against
        // the row.
        if let row = current, let contradiction = try transactions.contradiction(of: transaction, row: row),
            try evidence.storedEvidenceId(transaction.evidence.digest) == nil
        {
            throw contradiction
        }
        let stored = try evidence.storeEvidence(
            transaction.evidence, kind: "transaction", environment: transaction.environment,
            bundleId: transaction.payload.bundleId, signedDate: transaction.payload.signedDate,
            transactionId: transactionId, notificationUUID: nil, context: transaction.context)
        var outcome = RecordResult.Outcome.duplicate
        // A new token is applied. A token already stored may still be unrecorded: a
        // notification can carry the very token the app submits later without recording its
        // transaction (e.g. a renewal).
        if stored.isNew || current == nil {
            // A transaction the app submits without a signedDate may be of any age: it counts
            // as older than any signed information (0), so it may make a new row but never
            // undoes a refund, nor makes a later payload look stale.
            let (change, after) = try transactions.apply(
                transaction, undatedAt: 0, before: current, evidenceId: stored.id, source: "client", revokes: false,
                mayInsert: true, finished: finish)
            current = after
            switch change {
            case .inserted: outcome = .recorded
            case .updated, .unchanged: outcome = .updated
            case .stale, .unknown: outcome = .duplicate
            }
        }
        if finish, let unfinished = current, !unfinished.finished,
            try transactions.finishTransaction(transaction.environment, transactionId, source: "client")
        {
            // The row is not read again on this hot path.
            current?.markFinished()
        }
        return RecordResult(
            outcome: outcome, transactionId: transactionId, state: current?.state, finished: current?.finished)
    }
}
