// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerHTTP
internal import TipLedgerPresentation
internal import TipLedgerStore

/// What `serve` does with the App Store Server API when credentials are configured, on a
/// thread of its own so that no request waits for Apple: it sweeps each environment's
/// notification history every `interval` (the first sweep at start), and answers consumption
/// requests when customers consented, as soon as one is recorded and after every sweep.
///
/// A sweep goes through `NotificationSweep`, as `tipledger sync` does, so the two share their
/// progress in the ledger and either may run while the other does. Failures are logged; the
/// next round tries again.
final class ServeSync: Sendable {
    private struct State {
        var stopping = false
        var answerDue = false
        var nextSweep: ContinuousClock.Instant = .now
    }

    private let connection: AppStoreConnection
    private let intake: SignedPayloadIntake
    /// Nil when customers' consent is not configured: nothing is answered.
    private let answerer: ConsumptionAnswerer?
    /// Nil: no sweeps, only consumption answers.
    private let interval: Duration?
    private let metrics: ServiceMetrics
    private let clock: WallClock
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(
        connection: AppStoreConnection, intake: SignedPayloadIntake, answerer: ConsumptionAnswerer?,
        interval: Duration?, metrics: ServiceMetrics, clock: WallClock, log: @escaping @Sendable (String) -> Void
    ) {
        self.connection = connection
        self.intake = intake
        self.answerer = answerer
        self.interval = interval
        self.metrics = metrics
        self.clock = clock
        self.log = log
    }

    /// Starts the worker thread: the first sweep begins at once.
    func start() {
        state.withLock { $0.answerDue = true }
        // A queue of its own: the worker blocks on Apple and the ledger for as long as it runs.
        DispatchQueue(label: "tipledger.serve-sync").async { [self] in
            work()
            finished.signal()
        }
    }

    /// Asks for the open consumption requests to be answered now (one was just recorded).
    func consumptionRequested() {
        guard answerer != nil else { return }
        state.withLock { $0.answerDue = true }
        wake.signal()
    }

    /// Stops the worker once the page or answer in progress is done; waits at most `timeout`.
    func stop(upTo timeout: Duration) {
        state.withLock { $0.stopping = true }
        wake.signal()
        let (seconds, attoseconds) = timeout.components
        _ = finished.wait(
            timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func work() {
        while !stopping {
            let now = ContinuousClock.now
            let sweepDue = interval != nil && state.withLock { $0.nextSweep <= now }
            if sweepDue, let interval {
                state.withLock { $0.nextSweep = now + interval }
                sweep()
                state.withLock { $0.answerDue = true }
            }
            if state.withLock({ state in
                defer { state.answerDue = false }; return state.answerDue
            }) {
                answerConsumptionRequests()
            }
            let wait = interval.map { _ in state.withLock { $0.nextSweep } - ContinuousClock.now } ?? .seconds(3600)
            if wait > .zero {
                let (seconds, attoseconds) = wait.components
                _ = wake.wait(
                    timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
            }
        }
    }

    /// Sweeps each environment in turn; a failure in one is logged and the next still swept.
    private func sweep() {
        for (environment, client) in connection.clients where !stopping {
            let sweep = NotificationSweep(environment: environment, client: client, intake: intake)
            do {
                let now = clock.now()
                let stored =
                    try intake.ledger?.syncCursor(environment, .notificationHistory)
                    ?? SyncCursor(environment: environment, walk: .notificationHistory)
                let plan = try sweep.plan(stored: stored, override: NotificationSweep.Override(), now: now)
                for note in plan.notes { log("sync: \(note)") }
                var tally = OutcomeTally()
                let cursor = try sweep.run(plan, now: now, shouldStop: { stopping }, note: { log("sync: \($0)") }) {
                    page in
                    tally.count(page.outcomes)
                    for (index, outcome) in page.outcomes.enumerated() {
                        if case .rejected(let error) = outcome {
                            log(
                                "sync: \(environment.rawValue) page \(page.number) item \(index + 1) rejected: "
                                    + "\(error.code.rawValue): \(error.message)")
                        }
                    }
                }
                guard !cursor.running else { continue }
                metrics.syncSweepCompleted(environment: environment.rawValue, at: now.wholeMilliseconds)
                let rendering = SyncRendering(walk: .notificationHistory, transactionId: nil)
                log("sync: " + rendering.summaryText(environment, cursor: cursor, tally: tally, dryRun: false))
            } catch {
                log("error: sync: \(environment.rawValue): \(error)")
            }
        }
    }

    private func answerConsumptionRequests() {
        guard let answerer else { return }
        do {
            let open = try answerer.open(now: clock.now())
            guard !open.isEmpty else { return }
            for (request, result) in try answerer.answer(open, connection: connection) {
                let subject = "\(request.environment.rawValue) transaction \(request.transactionId)"
                switch result {
                case .accepted(let status, _): log("consumption: answered \(subject): Apple took it (\(status))")
                case .refused(let status, _, let error):
                    log("error: consumption: Apple refused the answer for \(subject) (\(status)): \(error.message)")
                case .failed(_, let error):
                    log("error: consumption: \(subject) not answered, tried again later: \(error.message)")
                case .skipped(let reason): log("consumption: not answering \(subject): \(reason)")
                }
            }
        } catch {
            log("error: consumption: \(error)")
        }
    }
}
