// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// What `sync` prints: a line per page once its records are committed (so a line printed is a
/// page recorded), a line per rejected payload, and a summary per walk; as text, or one JSON
/// object per line.
struct SyncOutput {
    let terminal: Terminal
    let format: GlobalOptions.Format
    /// Fields every JSON line starts with after `environment`: which walk this is.
    let walk: SyncCursor.Walk
    /// The transaction id a customer's walk was asked with.
    let transactionId: String?

    /// What a page held, and each rejection in it (by its position, 1-based).
    func page(_ environment: AppStoreEnvironment, number: Int, outcomes: [SignedPayloadIntake.Outcome]) {
        var tally = SyncTally()
        tally.count(outcomes)
        let items = walk == .notificationHistory ? "notifications" : "transactions"
        switch format {
        case .json, .csv, .html:
            json(environment) { object in
                object.field("page", number)
                object.field(items, outcomes.count)
                tally.write(to: &object)
            }
        case .text:
            terminal.line("\(environment.rawValue) page \(number): \(outcomes.count) \(items): \(tally.summary)")
        }
        for (index, outcome) in outcomes.enumerated() {
            guard case .rejected(let error) = outcome else { continue }
            switch format {
            case .json, .csv, .html:
                json(environment) { object in
                    object.field("page", number)
                    object.field("item", index + 1)
                    object.field("ok", false)
                    object.field("error", error.code.rawValue)
                    object.field("appleStatus", error.appleStatus)
                    object.field("message", error.message)
                }
            case .text:
                terminal.line(
                    "  rejected item \(index + 1): \(error.code.rawValue) (\(error.appleStatus)): \(error.message)")
            }
        }
        terminal.flush()
    }

    /// The end of a walk in `environment`: how it left `cursor`, and what it recorded.
    func summary(_ environment: AppStoreEnvironment, cursor: SyncCursor, tally: SyncTally, dryRun: Bool) {
        let items = walk == .notificationHistory ? "notifications" : "transactions"
        switch format {
        case .json, .csv, .html:
            json(environment) { object in
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
        case .text:
            var text = "\(environment.rawValue): \(tally.total) \(items) in \(cursor.pages) "
            text += cursor.pages == 1 ? "page" : "pages"
            text += ": \(tally.summary)"
            if walk == .notificationHistory, let start = cursor.windowStart, let end = cursor.windowEnd {
                text += "; sent from \(start) to \(end)"
                if cursor.onlyFailures { text += ", failures only" }
            }
            if cursor.running { text += " (stopped before the last page)" }
            if dryRun { text += " (dry run: nothing recorded)" }
            terminal.line(text)
        }
        terminal.flush()
    }

    private func json(_ environment: AppStoreEnvironment, _ body: (inout JSONWriter.ObjectWriter) -> Void) {
        var writer = JSONWriter()
        writer.object { object in
            object.field("environment", environment.rawValue)
            object.field("walk", walk.rawValue)
            if let transactionId { object.field("transactionId", transactionId) }
            body(&object)
        }
        writer.newline()
        terminal.write(bytes: writer.bytes)
    }
}
