// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Ledger {
    /// A recorder whose batches share write transactions, committed when its user says.
    public func batchRecorder() -> BatchRecorder {
        BatchRecorder(ledger: self)
    }
}

/// Records batch after batch into one write transaction, which `commit` ends; the next batch
/// opens another. For a writer that records many batches in a row, such as `verify`.
///
/// A commit writes every page it changed to the log, however few of its rows changed: the
/// pages of the indexes keyed by random values (token digests, accounts) are each changed by a
/// few rows of every batch. So fewer, larger commits write less.
///
/// Items are recorded as `Ledger.record` records them (`RecordWriter.recordEach`): a rejected
/// item fails alone and writes nothing, and its neighbours stay. Any other failure (disk full,
/// an I/O error, a broken invariant) rolls back the whole open transaction, every batch since
/// the last commit, and is thrown.
///
/// Nothing a recorder records is durable, or may be reported as recorded, before `commit`
/// returns. Meanwhile the transaction stays open on the ledger's writing connection, so no other
/// write of this process may run (SQLite would refuse it: one transaction per connection).
/// Used by one thread at a time; a recorder released without committing rolls back.
public final class BatchRecorder {
    let ledger: Ledger
    /// Whether a transaction is open, with batches not committed yet.
    private(set) var isOpen = false
    /// The connection's count of changed rows when the open transaction began: a commit that
    /// changed any has written to the ledger.
    private var changesAtOpen: Int64 = 0

    init(ledger: Ledger) {
        self.ledger = ledger
    }

    deinit {
        if isOpen { try? ledger.withDatabase { $0.rollBack() } }
    }

    /// Records `items` in the open transaction, opening one if needed, and returns one result
    /// per item, in order: a rejected item fails alone, with its rejection, and writes nothing.
    /// Any other failure rolls the open transaction back, so nothing since the last commit was
    /// written, and is thrown.
    public func record(_ items: [VerifiedPayload], finish: Bool) throws
        -> [Result<RecordResult, VerificationError>]
    {
        guard !items.isEmpty else { return [] }
        let now = ledger.clock.now().wholeMilliseconds
        return try ledger.withDatabase { database in
            do {
                if !isOpen {
                    try database.beginWrite()
                    isOpen = true
                    changesAtOpen = database.totalChanges
                }
                return try RecordWriter(database: database, now: now).recordEach(items, finish: finish)
            } catch {
                database.rollBack()
                isOpen = false
                throw ledger.failedWrite(error)
            }
        }
    }

    /// Commits the batches recorded since the last commit, if any.
    public func commit() throws {
        guard isOpen else { return }
        try ledger.withDatabase { database in
            isOpen = false
            do {
                try database.execute("COMMIT")
            } catch {
                database.rollBack()
                throw ledger.failedWrite(error)
            }
            if database.totalChanges != changesAtOpen { ledger.health.committed() }
            ledger.didWrite(database)
        }
    }
}
