// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization

/// Whether the ledger's writes commit, as this process last found, and how many failed, by
/// fault: so that a health check tells the truth about writing, and metrics count what failed.
///
/// A write that fails for any reason but a busy lock (a full disk, an I/O error, a read-only
/// file system, something unforeseen) leaves the ledger failing until a write records
/// something again; after a fault of the file system or the disk, also until a probe commits
/// (`Ledger.probeWriteIfDue`), since any commit meets such a fault. Damage is the exception:
/// no later write makes a damaged file whole, so once SQLite reported it, the ledger stays
/// failing for as long as this process has it open (it is restored from a backup, and the
/// process started again on the restored file). A rejected input is no failure of the ledger.
public final class LedgerHealth: Sendable {
    /// The failure in force: its kind, and the error, said in words for the logs (it names
    /// the ledger's path, which clients are not told).
    public struct Failure: Sendable {
        public let fault: LedgerFault
        public let error: StoreError
    }

    private struct State {
        var failure: Failure?
        var failedWrites: [LedgerFault: Int] = [:]
        /// When a write or a probe last tried to commit, to space probes out.
        var lastAttempt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    init() {}

    /// The failure in force, or nil while writes commit.
    public var failure: Failure? { state.withLock { $0.failure } }

    /// Writes that failed to commit since the ledger was opened, by fault; probes not counted.
    public var failedWrites: [LedgerFault: Int] { state.withLock { $0.failedWrites } }

    /// A write committed something: the ledger is healthy again, unless it is damaged.
    func committed() {
        state.withLock { state in
            state.lastAttempt = .now
            if state.failure?.fault != .damaged { state.failure = nil }
        }
    }

    /// A write failed with `error`; `counted` unless it was a probe (or a read that found
    /// damage). A busy lock is counted but changes nothing else: the next write may commit.
    /// Damage, once found, stays.
    func failed(_ error: StoreError, counted: Bool = true) {
        state.withLock { state in
            state.lastAttempt = .now
            if counted { state.failedWrites[error.fault, default: 0] += 1 }
            guard error.fault != .busy, state.failure?.fault != .damaged else { return }
            state.failure = Failure(fault: error.fault, error: error)
        }
    }

    /// Whether a probe is due: the ledger is failing for a fault of the file system or the
    /// disk, and nothing tried to commit for `interval`. A probe due is taken: the next caller
    /// waits another `interval`, so concurrent health checks probe once.
    func takeProbe(every interval: Duration) -> LedgerFault? {
        state.withLock { state in
            guard let fault = state.failure?.fault, fault.isStorageFault else { return nil }
            let now = ContinuousClock.now
            if let last = state.lastAttempt, now < last + interval { return nil }
            state.lastAttempt = now
            return fault
        }
    }
}
