// SPDX-License-Identifier: GPL-3.0-or-later

/// The changes that a batch's repeat lookups may not have seen. The workers look a batch's
/// repeats up in the committed ledger while the batch before it is recorded; by then every
/// batch since the last commit but one was recorded and is not committed yet.
struct UnseenChanges {
    /// What the next batch's lookups may have missed: the changes of the batches recorded since
    /// the commit before the last batch.
    private(set) var unseenByNext = TouchedTransactions()
    private var uncommitted = TouchedTransactions()

    /// After a batch was recorded, with the transactions it may have changed.
    mutating func recorded(_ changed: TouchedTransactions) {
        uncommitted.formUnion(changed)
        unseenByNext = uncommitted
    }

    /// After a commit: lookups from now on see everything recorded so far.
    mutating func committed() {
        uncommitted = TouchedTransactions()
    }
}
