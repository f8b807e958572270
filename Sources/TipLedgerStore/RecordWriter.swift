// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Records verified payloads by the ledger's rules (docs/ledger.md), inside an open write
/// transaction: the one path every write of a payload takes, from `verify` (`BatchRecorder`)
/// and from the HTTP service (`Ledger.record`) alike. It hands each item to the part that
/// records its kind; those share the evidence store, the transaction applier and the event log.
struct RecordWriter {
    let database: Database
    let transactions: TransactionRecorder
    let notifications: NotificationRecorder

    /// One result per item, where the only failure is the item's rejection.
    typealias Rejections = [Result<RecordResult, VerificationError>]

    /// A writer for items recorded at `now`, milliseconds since 1970.
    init(database: Database, now: Int64) {
        self.database = database
        let evidence = EvidenceStore(database: database, now: now)
        let applier = TransactionApplier(database: database, now: now)
        transactions = TransactionRecorder(evidence: evidence, transactions: applier)
        notifications = NotificationRecorder(
            database: database, now: now, evidence: evidence, transactions: applier,
            consumptionRequests: ConsumptionRequestTracker(database: database, now: now))
    }

    /// Records `items` one after another in the open transaction. Every check that can reject
    /// an item runs before the item writes anything (`TransactionApplier.existingRow(of:)`), so
    /// a rejected item fails alone, with nothing to undo, and no savepoint is needed: a
    /// savepoint makes SQLite keep the first version of every page changed inside it, which in
    /// a large ledger costs more than the log itself (docs/performance.md). Any other failure
    /// of an item is thrown, and the transaction then holds part of that item: the caller must
    /// roll it back. So is a rejection that came after a write, as a broken invariant: that
    /// would be a broken promise.
    func recordEach(_ items: [VerifiedPayload], finish: Bool) throws -> Rejections {
        try items.map { item in
            let changesBefore = database.totalChanges
            do {
                return .success(try record(item, finish: finish))
            } catch let rejection as VerificationError {
                guard database.totalChanges == changesBefore else {
                    throw StoreError.brokenInvariant(
                        "an item rejected after it wrote to the ledger: \(rejection.message)")
                }
                return .failure(rejection)
            }
        }
    }

    func record(_ item: VerifiedPayload, finish: Bool) throws -> RecordResult {
        if let reason = Ledger.unrecordableReason(item) { throw reason }
        switch item {
        case .transaction(let transaction):
            return try transactions.record(transaction, finish: finish)
        case .notification(let notification):
            return try notifications.record(notification)
        case .renewalInfo, .appTransaction:
            return RecordResult(outcome: .notRecorded, transactionId: nil, state: nil, finished: nil)
        }
    }
}
