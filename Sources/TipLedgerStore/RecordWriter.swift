// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Records verified payloads by the ledger's rules (docs/ledger.md), inside an open write
/// transaction. It hands each item to the part that records its kind; those share the evidence
/// store, the transaction applier and the event log.
struct RecordWriter {
    let database: Database
    let transactions: TransactionRecorder
    let notifications: NotificationRecorder

    typealias Results = [Result<RecordResult, StoreError>]
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

    /// Records `items` (see `Ledger.record`) in a write transaction. A rejected item fails alone
    /// (`recordEach`). If an item fails otherwise, that transaction is undone and a second
    /// records them item by item, each in a savepoint, so the failure costs only that item. A
    /// failure of the transaction itself (busy past the timeout, disk full) is thrown as it is.
    func record(_ items: [VerifiedPayload], tokenDigests: [[UInt8]?], finish: Bool) throws -> Results {
        var itemFailed = false
        do {
            return try database.writeTransaction {
                do {
                    return try recordEach(items, tokenDigests: tokenDigests, finish: finish).map {
                        $0.mapError(StoreError.init(rejecting:))
                    }
                } catch {
                    itemFailed = true
                    throw error
                }
            }
        } catch  where itemFailed {}
        return try database.writeTransaction {
            try items.indices.map { index in
                do {
                    return .success(
                        try database.savepoint {
                            try record(
                                items[index], digest: tokenDigests.isEmpty ? nil : tokenDigests[index], finish: finish)
                        })
                } catch {
                    // Some errors (disk full, I/O error, out of memory) make SQLite roll back
                    // the whole transaction by itself: then the batch has failed as a whole,
                    // and the items after this one must not go on outside it.
                    guard database.isInTransaction else { throw error }
                    return .failure(error as? StoreError ?? StoreError(code: 0, message: "\(error)"))
                }
            }
        }
    }

    /// Records `items` one after another in the open transaction. Every check that can reject
    /// an item runs before the item writes anything (`TransactionApplier.existingRow(of:)`), so
    /// a rejected item fails alone, with nothing to undo. Any other failure
    /// of an item is thrown, and the transaction then holds part of that item: the caller must
    /// roll it back. So is a rejection that came after a write, as a ledger error: that would
    /// be a broken promise.
    ///
    /// `tokenDigests`, unless empty, holds each item's token digest, or nil where the caller
    /// has none.
    func recordEach(_ items: [VerifiedPayload], tokenDigests: [[UInt8]?], finish: Bool) throws -> Rejections {
        precondition(tokenDigests.isEmpty || tokenDigests.count == items.count, "one digest per item, or none")
        return try items.indices.map { index in
            let changesBefore = database.totalChanges
            do {
                let digest = tokenDigests.isEmpty ? nil : tokenDigests[index]
                return .success(try record(items[index], digest: digest, finish: finish))
            } catch let error as StoreError {
                guard let rejection = error.rejection else { throw error }
                guard database.totalChanges == changesBefore else {
                    throw StoreError(
                        code: 0, message: "an item rejected after it wrote to the ledger: \(error.message)")
                }
                return .failure(rejection)
            }
        }
    }

    /// `digest` is the SHA-256 of the item's token when the caller has it.
    func record(_ item: VerifiedPayload, digest: [UInt8]?, finish: Bool) throws -> RecordResult {
        if let reason = Ledger.unrecordableReason(item) { throw StoreError(rejecting: reason) }
        switch item {
        case .transaction(let transaction):
            return try transactions.record(transaction, digest: digest, finish: finish)
        case .notification(let notification):
            return try notifications.record(notification, digest: digest)
        case .renewalInfo, .appTransaction:
            return RecordResult(outcome: .notRecorded, transactionId: nil, state: nil, finished: nil)
        }
    }
}
