// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

extension SyncRendering {
    /// A line for the page, then one per rejection in it (by its position, 1-based).
    public func pageText(_ environment: AppStoreEnvironment, number: Int, outcomes: [PayloadOutcome]) -> [String] {
        var tally = OutcomeTally()
        tally.count(outcomes)
        var lines = ["\(environment.rawValue) page \(number): \(outcomes.count) \(items): \(tally.summary)"]
        for (index, outcome) in outcomes.enumerated() {
            guard case .rejected(let error) = outcome else { continue }
            lines.append(
                "  rejected item \(index + 1): \(error.code.rawValue) (\(error.appleStatus)): \(error.message)")
        }
        return lines
    }

    /// The end of a walk in `environment`: what it recorded, and how it left `cursor`.
    public func summaryText(
        _ environment: AppStoreEnvironment, cursor: SyncCursor, tally: OutcomeTally, dryRun: Bool
    ) -> String {
        var text = "\(environment.rawValue): \(tally.total) \(items) in \(cursor.pages) "
        text += cursor.pages == 1 ? "page" : "pages"
        text += ": \(tally.summary)"
        if walk == .notificationHistory, let start = cursor.windowStart, let end = cursor.windowEnd {
            text += "; sent from \(start) to \(end)"
            if cursor.onlyFailures { text += ", failures only" }
        }
        if cursor.running { text += " (stopped before the last page)" }
        if dryRun { text += " (dry run: nothing recorded)" }
        return text
    }
}
