// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerStore

/// What `finish` did to each transaction id, as it prints it (docs/cli.md): one line per id and
/// environment holding it, in JSON or in text, one file per format.
public struct FinishRendering {
    let results: [FinishResult]

    public init(results: [FinishResult]) {
        self.results = results
    }
}
