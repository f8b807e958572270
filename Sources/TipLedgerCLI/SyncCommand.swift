// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger sync`: puts what Apple holds into the ledger through the App Store Server API —
/// the app's notification history, or one customer's transactions or refunds.
struct SyncCommand: Command {
    static let name = "sync"
    static let summary = "fetch missed notifications, or a customer's history, from Apple"
    static let usage = """
        Usage: tipledger sync [--since TIME] [--until TIME] [--only-failures] [--dry-run]
               tipledger sync --history TRANSACTION_ID [--finished] [--from-start] [--dry-run]
               tipledger sync --refunds TRANSACTION_ID [--from-start] [--dry-run]

        Sweeps Apple's notification history (Get Notification History) for each environment of
        --environment and records every notification as 'verify' does: verified, once per
        notificationUUID, the newest signedDate winning. A purchase the app never posted
        (ONE_TIME_CHARGE) is recorded pending until finished. The ledger remembers how far a
        sweep got: the next one continues from there (an hour of overlap), and one that was
        stopped resumes after the last page it recorded. The first sweep goes back as far as
        Apple keeps: 180 days in Production, 30 in the sandbox. A line is printed per page
        once it is recorded.

        --history fetches one customer's whole history (Get Transaction History v2): how an
        app that already sells tips imports its past. --refunds fetches their refunds (Get
        Refund History v2). Either continues, next time, from where the last walk ended.

        Options:
          --since TIME          sweep notifications sent from TIME (2026-01-31,
                                2026-01-31T08:00:00Z, or 7d, 12h, 30m ago)
          --until TIME          ... sent before TIME (default: now)
          --only-failures       only notifications that did not reach the server
          --history ID          the customer with this transaction id: all their transactions
          --refunds ID          the customer with this transaction id: their refunds
          --finished            with --history: record new transactions as finished
                                (delivered), not pending
          --from-start          with --history or --refunds: everything, not only what
                                changed since the last walk
          --dry-run             verify and show, record nothing

        Exit status 0 when every payload verified, 1 when one was rejected (forged or not
        this app's), 69 when Apple could not be reached (run it again: nothing is lost).

        """ + "\n" + APIOptions.usage + "\n"

    /// Which history to walk.
    enum Target {
        case notifications(since: String?, until: String?, onlyFailures: Bool)
        case customer(SyncCursor.Walk, transactionId: String)
    }

    let target: Target
    let dryRun: Bool
    let finish: Bool
    let fromStart: Bool
    let format: GlobalOptions.Format
    let api: APIOptions

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text, .json], command: Self.name)
        dryRun = scanner.flag("--dry-run")
        finish = scanner.flag("--finished")
        fromStart = scanner.flag("--from-start")
        let history = try scanner.value("--history")
        let refunds = try scanner.value("--refunds")
        let since = try scanner.value("--since")
        let until = try scanner.value("--until")
        let onlyFailures = scanner.flag("--only-failures")
        api = try APIOptions(parsing: &scanner)
        switch (history, refunds) {
        case (nil, nil):
            guard !finish, !fromStart else {
                throw CLIError.usage(
                    "\(finish ? "--finished" : "--from-start") goes with --history or --refunds", command: Self.name)
            }
            target = .notifications(since: since, until: until, onlyFailures: onlyFailures)
        case (let id?, nil), (nil, let id?):
            guard since == nil, until == nil, !onlyFailures else {
                throw CLIError.usage(
                    "--since, --until and --only-failures are for the notification sweep, not a customer's history",
                    command: Self.name)
            }
            guard history != nil || !finish else {
                throw CLIError.usage("--finished goes with --history", command: Self.name)
            }
            guard Ledger.isUsableTransactionId(id) else {
                throw CLIError.usage("'\(id)' is not a transaction id", command: Self.name)
            }
            target = .customer(history != nil ? .transactionHistory : .refundHistory, transactionId: id)
        case (.some, .some):
            throw CLIError.usage("give --history or --refunds, not both", command: Self.name)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let verifier = try context.verifier(for: Self.name)
        let override = try notificationOverride(now: context.clock.now())
        let connection = try api.connect(
            context, command: Self.name, observer: AppStoreConnection.notes(on: context.terminal))
        let ledger = dryRun ? nil : try context.openLedger(.record)
        let intake = SignedPayloadIntake(verifier: verifier, ledger: ledger)
        var rejected = 0
        switch target {
        case .notifications:
            for (environment, client) in connection.clients {
                rejected += try sweep(
                    NotificationSweep(environment: environment, client: client, intake: intake), override: override,
                    context)
            }
        case .customer(let walk, let transactionId):
            rejected += try walkCustomer(walk, transactionId, connection: connection, intake: intake, context)
        }
        return rejected > 0 ? .rejected : .success
    }

    /// The window `--since`, `--until` and `--only-failures` ask for.
    private func notificationOverride(now: AppleDate) throws -> NotificationSweep.Override {
        guard case .notifications(let since, let until, let onlyFailures) = target else {
            return NotificationSweep.Override()
        }
        return NotificationSweep.Override(
            since: try since.map { try Self.time($0, option: "--since", now: now) },
            until: try until.map { try Self.time($0, option: "--until", now: now) }, onlyFailures: onlyFailures)
    }

    /// Sweeps one environment's notification history; returns how many payloads it rejected.
    private func sweep(_ sweep: NotificationSweep, override: NotificationSweep.Override, _ context: CommandContext)
        throws -> Int
    {
        let ledger = sweep.intake.ledger
        let now = context.clock.now()
        let stored =
            try ledger?.syncCursor(sweep.environment, .notificationHistory)
            ?? SyncCursor(environment: sweep.environment, walk: .notificationHistory)
        let plan = try sweep.plan(stored: stored, override: override, now: now)
        for note in plan.notes { context.terminal.errorLine("note: \(note)") }
        let rendering = SyncRendering(walk: .notificationHistory, transactionId: nil)
        var tally = OutcomeTally()
        let cursor = try sweep.run(plan, now: now, note: { context.terminal.errorLine("note: \($0)") }) { page in
            show(rendering, page: page.number, in: sweep.environment, outcomes: page.outcomes, context.terminal)
            tally.count(page.outcomes)
        }
        show(rendering, summaryOf: cursor, in: sweep.environment, tally: tally, context.terminal)
        return tally.rejected
    }

    /// Walks one customer's transactions or refunds; returns how many payloads it rejected.
    private func walkCustomer(
        _ walk: SyncCursor.Walk, _ transactionId: String, connection: AppStoreConnection,
        intake: SignedPayloadIntake, _ context: CommandContext
    ) throws -> Int {
        let rendering = SyncRendering(walk: walk, transactionId: transactionId)
        var tally = OutcomeTally()
        let walker = CustomerHistoryWalk(walk: walk, transactionId: transactionId, intake: intake, finish: finish)
        let found = try walker.run(
            connection, fromStart: fromStart, now: context.clock.now(),
            note: { context.terminal.errorLine("note: \($0)") }
        ) { page in
            show(rendering, page: page.number, in: page.environment, outcomes: page.outcomes, context.terminal)
            tally.count(page.outcomes)
        }
        guard let (environment, cursor) = found else {
            throw CLIError(
                .rejected, "Apple knows no transaction \(transactionId) in \(connection.environmentNames)",
                hint: "give any transaction id of the customer, as the app or a receipt shows it")
        }
        show(rendering, summaryOf: cursor, in: environment, tally: tally, context.terminal)
        return tally.rejected
    }

    /// Prints what a page held once it is committed, so that a line printed is a page recorded.
    private func show(
        _ rendering: SyncRendering, page number: Int, in environment: AppStoreEnvironment,
        outcomes: [PayloadOutcome], _ terminal: Terminal
    ) {
        let lines =
            format == .text
            ? rendering.pageText(environment, number: number, outcomes: outcomes)
            : rendering.pageJSON(environment, number: number, outcomes: outcomes)
        for line in lines { terminal.line(line) }
        terminal.flush()
    }

    /// Prints the end of a walk.
    private func show(
        _ rendering: SyncRendering, summaryOf cursor: SyncCursor, in environment: AppStoreEnvironment,
        tally: OutcomeTally, _ terminal: Terminal
    ) {
        terminal.line(
            format == .text
                ? rendering.summaryText(environment, cursor: cursor, tally: tally, dryRun: dryRun)
                : rendering.summaryJSON(environment, cursor: cursor, tally: tally, dryRun: dryRun))
        terminal.flush()
    }

    /// A time for `--since` or `--until`: a date, a timestamp, or a span before `now` (`7d`,
    /// `12h`, `30m`).
    static func time(_ text: String, option: String, now: AppleDate) throws -> AppleDate {
        if let date = AppleDate.parse(text) { return date }
        let units: [Character: Int64] = ["d": 86_400_000, "h": 3_600_000, "m": 60_000]
        if let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), (0...3650).contains(count) {
            return AppleDate(wholeMilliseconds: now.wholeMilliseconds - count * unit)
        }
        throw CLIError.usage(
            "\(option) takes a date (2026-01-31), a timestamp (2026-01-31T08:00:00Z) or a span ago (7d, 12h, 30m), "
                + "not '\(text)'", command: name)
    }
}
