// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerStore

/// What `lookup` shows of the transactions Apple returned (docs/cli.md): a table row each, with
/// what the ledger made of it, or one JSON object per line; one file per format.
public struct LookupRendering {
    let outcomes: [PayloadOutcome]
    /// Whether nothing was recorded, which the text says under the table.
    let dryRun: Bool

    public init(outcomes: [PayloadOutcome], dryRun: Bool) {
        self.outcomes = outcomes
        self.dryRun = dryRun
    }
}
