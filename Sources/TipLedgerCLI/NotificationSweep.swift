// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerStore

/// One sweep of the app's notification history in one environment (Get Notification History):
/// every page fetched, every signed payload put through `SignedPayloadIntake`, and the cursor
/// saved with each page's records, so that a sweep stopped anywhere resumes after the last page
/// it recorded and loses nothing.
///
/// Where a sweep begins is the ledger's to say (`plan`): an unfinished sweep resumes over its
/// own window; otherwise a new one runs from where the last one ended, less `overlap`, to now;
/// the first runs from as far back as Apple keeps (180 days in Production, 30 in the sandbox).
/// `--since`, `--until` and `--only-failures` replace that window. A sweep needs one request
/// per page of up to 20 notifications, and none per notification.
struct NotificationSweep {
    /// What the operator asked for instead of the ledger's progress.
    struct Override {
        var since: AppleDate?
        var until: AppleDate?
        var onlyFailures = false

        var isEmpty: Bool { since == nil && until == nil && !onlyFailures }
    }

    /// A sweep about to run: the cursor it starts from and what to tell the operator about it.
    struct Plan {
        /// Running, over the sweep's window, with the token of the page after the last recorded.
        let cursor: SyncCursor
        let resumed: Bool
        /// Notes for the operator: a window cut to Apple's, a resumed sweep.
        let notes: [String]
    }

    /// One page of the sweep, once recorded.
    struct Page {
        let number: Int
        let outcomes: [PayloadOutcome]
    }

    let environment: AppStoreEnvironment
    let client: AppStoreServerAPIClient
    let intake: SignedPayloadIntake

    /// How far back a new sweep starts before the end of the last: a notification Apple lists
    /// a little after it sent it is still found. Its notifications come again as duplicates.
    static let overlap: Duration = .seconds(3600)

    /// How long Apple keeps notification history: 180 days in Production, 30 in the sandbox.
    static func historyDays(_ environment: AppStoreEnvironment) -> Int64 { environment == .production ? 180 : 30 }

    /// The earliest start Apple takes at `now`, with a minute to spare for clocks that differ.
    static func earliestStart(_ environment: AppStoreEnvironment, now: AppleDate) -> AppleDate {
        AppleDate(wholeMilliseconds: now.wholeMilliseconds - historyDays(environment) * 86_400_000 + 60_000)
    }

    /// How much later than Apple's earliest a sweep from the start of the history begins, so that
    /// the sweep, stopped, can resume over the same window for this long (its page token is
    /// good only for the window it was given with).
    static let resumableFor: Duration = .seconds(3600)

    /// Where a sweep from the start of Apple's history begins at `now`.
    static func historyStart(_ environment: AppStoreEnvironment, now: AppleDate) -> AppleDate {
        AppleDate(
            wholeMilliseconds: earliestStart(environment, now: now).wholeMilliseconds
                + Int64(resumableFor / .milliseconds(1)))
    }

    /// The sweep to run at `now`, from `stored` progress unless `override` says otherwise.
    ///
    /// - Throws: a usage error when the override's window is empty.
    func plan(stored: SyncCursor, override: Override, now: AppleDate) throws -> Plan {
        let earliest = Self.earliestStart(environment, now: now)
        let days = Self.historyDays(environment)
        var notes: [String] = []
        if override.isEmpty, stored.running, let start = stored.windowStart, stored.windowEnd != nil {
            if start >= earliest {
                let after = stored.pages == 0 ? "from its first page" : "after page \(stored.pages)"
                notes.append(
                    "\(environment.rawValue): resuming the sweep of notifications sent from \(start) to "
                        + "\(stored.windowEnd!) \(after)")
                return Plan(cursor: stored, resumed: true, notes: notes)
            }
            notes.append(
                "\(environment.rawValue): the sweep stopped at \(start) is older than Apple's \(days) days "
                    + "of history; sweeping anew")
        }
        var start: AppleDate
        if let since = override.since {
            start = since
        } else if let swept = stored.sweptUntil {
            start = AppleDate(wholeMilliseconds: swept.wholeMilliseconds - Int64(Self.overlap / .milliseconds(1)))
        } else {
            start = Self.historyStart(environment, now: now)
            notes.append(
                "\(environment.rawValue): first sweep: notifications sent in the last \(days) days, as far back "
                    + "as Apple keeps them")
        }
        if start < earliest {
            let given = override.since != nil ? "--since \(start)" : "the last sweep's end, \(start),"
            let historyStart = Self.historyStart(environment, now: now)
            notes.append(
                "\(environment.rawValue): Apple keeps \(days) days of notification history, so \(given) is out of "
                    + "reach: sweeping from \(historyStart); 'tipledger sync --history TRANSACTION_ID' fetches "
                    + "a customer's older transactions")
            start = historyStart
        }
        // Apple reads an end in the future as now, and a sweep's end is what it counts as swept:
        // what is sent after now is for a later sweep.
        let end = min(override.until ?? now, now)
        guard start < end else {
            throw CLIError(
                .usage, "the sweep's window is empty: it starts at \(start) and ends at \(end)",
                hint: "give --until after --since (and after \(earliest), the start of Apple's history)")
        }
        var cursor = stored
        cursor.running = true
        cursor.windowStart = start
        cursor.windowEnd = end
        cursor.onlyFailures = override.onlyFailures
        cursor.cursor = nil
        cursor.pages = 0
        return Plan(cursor: cursor, resumed: false, notes: notes)
    }

    /// Runs the sweep `plan` describes, calling `page` after each page was recorded; returns the
    /// cursor as the sweep left it (completed, unless `shouldStop` stopped it between pages).
    ///
    /// `now` is when the sweep completes, as its record says. `note` hears of a stored page
    /// token Apple no longer takes, after which the window is swept from its start, once: a
    /// token refused again in the same run ends it with Apple's error.
    ///
    /// - Throws: `AppStoreAPIError` when a call fails for good, or a store error; the pages
    ///   recorded before stay recorded, and the next sweep resumes after them.
    func run(
        _ plan: Plan, now: AppleDate, shouldStop: () -> Bool = { false }, note: (String) -> Void = { _ in },
        page: (Page) throws -> Void
    ) throws -> SyncCursor {
        var cursor = plan.cursor
        guard let start = cursor.windowStart, let end = cursor.windowEnd else { return cursor }
        var request = NotificationHistoryRequest(startDate: start, endDate: end)
        request.onlyFailures = cursor.onlyFailures
        var pages = try client.notificationHistory(request, resumingAfter: cursor.cursor)
        var restarted = false
        while !shouldStop() {
            let fetched: Result<NotificationHistoryResponse?, AppStoreAPIError>
            do {
                fetched = .success(try pages.next())
            } catch {
                fetched = .failure(error)
            }
            let response: NotificationHistoryResponse
            switch fetched {
            case .success(let next?): response = next
            case .success(nil): return cursor
            case .failure(let error):
                // Restarting again would walk the same pages for as long as Apple refuses them.
                guard cursor.cursor != nil, !restarted, Self.isLapsedToken(error) else { throw error }
                restarted = true
                note(
                    "\(environment.rawValue): Apple no longer takes the stored page token; sweeping the window "
                        + "from its start (what was recorded counts as duplicates)")
                cursor.cursor = nil
                cursor.pages = 0
                pages = try client.notificationHistory(request)
                continue
            }
            cursor.cursor = pages.cursor
            cursor.pages += 1
            if !response.hasMore { complete(&cursor, now: now) }
            let outcomes = try intake.take(
                response.notificationHistory.map { $0.signedPayload ?? "" }, as: .notification, finish: false,
                saving: cursor)
            try page(Page(number: cursor.pages, outcomes: outcomes))
        }
        return cursor
    }

    /// Marks the sweep in `cursor` done: every notification sent before its end is swept when
    /// it covered all of them from the previous end on (not only failures).
    private func complete(_ cursor: inout SyncCursor, now: AppleDate) {
        cursor.running = false
        cursor.completed = now
        guard !cursor.onlyFailures, let start = cursor.windowStart, let end = cursor.windowEnd else { return }
        if let swept = cursor.sweptUntil {
            if start <= swept { cursor.sweptUntil = max(swept, end) }
        } else {
            cursor.sweptUntil = end
        }
    }

    /// Apple's answers to a page token it no longer takes: `InvalidPaginationTokenError` and
    /// `PaginationTokenExpiredError`.
    static func isLapsedToken(_ error: AppStoreAPIError) -> Bool {
        [4_000_014, 4_000_017].contains(error.apple?.errorCode ?? 0)
    }
}
