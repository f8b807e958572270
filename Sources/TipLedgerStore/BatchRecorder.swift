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
/// few rows of every batch. So fewer, larger commits write less. Each batch runs in a savepoint,
/// so that a failing item undoes only its own batch's first attempt (see `RecordWriter.record`);
/// SQLite keeps the first version of every page the batch changes for it, which takes back
/// part of the gain in a large ledger: 400,000 lines took 42–45 s in commits of 8,192 lines
/// against 46 s in commits of 2,048 (alternating runs), and 39.6 s without the savepoints.
///
/// Nothing a recorder records is durable, or may be reported as recorded, before `commit`
/// returns. Meanwhile the transaction stays open on the ledger's writing connection, so no other
/// write of this process may run (SQLite would refuse it: one transaction per connection).
/// Used by one thread at a time; a recorder released without committing rolls back.
public final class BatchRecorder {
    let ledger: Ledger
    /// Whether a transaction is open, with batches not committed yet.
    public private(set) var isOpen = false

    init(ledger: Ledger) {
        self.ledger = ledger
    }

    deinit {
        if isOpen { try? ledger.withDatabase { $0.rollBack() } }
    }

    /// Records `items` in the open transaction, opening one if needed, as `Ledger.record`
    /// does: one bad item leaves the batch's others recorded. When the batch fails as a whole
    /// (busy past the timeout, disk full), the open transaction is rolled back, so nothing
    /// since the last commit was written, and the error thrown.
    public func record(_ items: [VerifiedPayload], tokenDigests: [[UInt8]?] = [], finish: Bool) throws
        -> [Result<RecordResult, StoreError>]
    {
        guard !items.isEmpty else { return [] }
        let now = ledger.clock.now().wholeMilliseconds
        return try ledger.withDatabase { database in
            if !isOpen {
                try database.execute("BEGIN IMMEDIATE")
                isOpen = true
            }
            // What undid the first attempt. When it made SQLite roll the whole transaction back
            // by itself (disk full, I/O error, out of memory), it is the batch's failure: a
            // savepoint now would start a transaction of its own.
            var failure: (any Error)? = nil
            do {
                return try RecordWriter(database: database, now: now).record(
                    items, tokenDigests: tokenDigests, finish: finish,
                    attempt: { body in
                        do {
                            return try database.savepoint(named: "batch", body)
                        } catch {
                            failure = error
                            throw error
                        }
                    },
                    retry: { body in
                        guard database.isInTransaction else { throw failure ?? Self.lost }
                        return try body()
                    })
            } catch {
                database.rollBack()
                isOpen = false
                throw error
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
                throw error
            }
            ledger.didWrite(database)
        }
    }

    static let lost = StoreError(code: 0, message: "the ledger's write transaction ended unexpectedly")

}
