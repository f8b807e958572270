// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

extension SyncRendering {
    /// An object for the page, then one per rejection in it (by its position, 1-based).
    public func pageJSON(_ environment: AppStoreEnvironment, number: Int, outcomes: [PayloadOutcome]) -> [String] {
        var tally = OutcomeTally()
        tally.count(outcomes)
        var lines = [
            line(environment) { object in
                object.field("page", number)
                object.field(items, outcomes.count)
                tally.write(to: &object)
            }
        ]
        for (index, outcome) in outcomes.enumerated() {
            guard case .rejected(let error) = outcome else { continue }
            lines.append(
                line(environment) { object in
                    object.field("page", number)
                    object.field("item", index + 1)
                    RejectionJSON.write(error, to: &object)
                })
        }
        return lines
    }

    /// The end of a walk in `environment`: how it left `cursor`, and what it recorded.
    public func summaryJSON(
        _ environment: AppStoreEnvironment, cursor: SyncCursor, tally: OutcomeTally, dryRun: Bool
    ) -> String {
        line(environment) { object in
            object.field("completed", !cursor.running)
            if walk == .notificationHistory {
                object.field("from", cursor.windowStart?.description)
                object.field("until", cursor.windowEnd?.description)
                object.field("onlyFailures", cursor.onlyFailures)
            }
            object.field("pages", cursor.pages)
            object.field(items, tally.total)
            tally.write(to: &object)
            object.field("dryRun", dryRun)
        }
    }

    /// One object that starts with the environment and which walk it is.
    private func line(_ environment: AppStoreEnvironment, _ body: (inout JSONWriter.ObjectWriter) -> Void) -> String {
        var writer = JSONWriter()
        writer.object { object in
            object.field("environment", environment.rawValue)
            object.field("walk", walk.rawValue)
            if let transactionId { object.field("transactionId", transactionId) }
            body(&object)
        }
        return writer.text
    }
}
