// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization
internal import TipLedgerCore

/// Runs passive checkpoints on a serial queue with its own connection, one at a time (a request
/// made while one runs is folded into the next), copying committed pages from the log into the
/// file without holding up the writer or readers.
///
/// A passive checkpoint never restarts the log, and with readers always about (the repeat
/// lookups) SQLite would never restart it on its own either: it grew by gigabytes over a million
/// lines. So once the log is large and fully copied, the writer restarts it itself between two
/// write transactions (`restartIfDue`), waiting briefly for readers to step off it.
///
/// Checkpoints wait until the log has grown by as many frames as the ledger has pages, at least
/// `minimumFrames` and at most `checkpointFrames`: a page that several commits in between wrote
/// (an index page keyed by random values, in a large ledger) is then copied into the file once
/// rather than once per commit (docs/performance.md). A small ledger's log is copied sooner, so
/// that its log does not outgrow a small volume; a writer that never stops (`serve`) bounds the
/// log whatever the ledger's size (`Ledger.open(logBound:)`).
final class Checkpointer: Sendable {
    /// Log the writer restarts once a checkpoint copied all of it, by default.
    static let restartBytes = 32 << 20
    /// Most log committed between two checkpoints, by default.
    static let checkpointBytes = 256 << 20
    /// Least log committed between two checkpoints, by default.
    static let minimumBytes = 8 << 20

    /// The default limits in frames (one page each) for a ledger of `pageSize`-byte pages:
    /// the same bytes of log whatever the ledger's page size (8 KiB before 16 KiB became the
    /// size of a new ledger's pages, 4 KiB before that).
    static func frames(pageSize: Int) -> (checkpoint: Int, minimum: Int, restart: Int64) {
        let size = max(pageSize, 512)
        return (checkpointBytes / size, minimumBytes / size, Int64(restartBytes / size))
    }
    /// The longest the writer waits for readers to step off the log when restarting it. It
    /// holds the write lock meanwhile, so a reader that takes longer (a report over a large
    /// ledger, a backup) has the restart tried again later rather than every write held up:
    /// once the log has grown by another quarter of `restartFrames`, so a reader that stays for
    /// long costs a wait every few megabytes of log, not every commit.
    static let restartWaitMilliseconds: Int32 = 20

    let checkpointFrames: Int
    let minimumFrames: Int
    let restartFrames: Int64

    private let database: LockedDatabase
    private let queue = DispatchQueue(label: "tipledger.checkpoint")
    private let state = Mutex((running: false, requested: false, restartDue: false, retryAtFrames: 0))
    /// The log's length in frames when the last checkpoint was asked for.
    private let framesAtLastRequest = Mutex(0)
    /// Checkpoints run so far.
    let checkpointsRun = Atomic(0)
    /// Restarts of the log tried so far, whether readers let them through or not.
    let restartsTried = Atomic(0)

    init(_ database: LockedDatabase, checkpointFrames: Int, minimumFrames: Int, restartFrames: Int64) {
        self.database = database
        self.checkpointFrames = checkpointFrames
        self.minimumFrames = min(minimumFrames, checkpointFrames)
        self.restartFrames = restartFrames
    }

    /// Asks for a checkpoint once `logFrames` (the log's length after a commit) is past the
    /// last request by the ledger's `databasePages` (within `minimumFrames...checkpointFrames`);
    /// a log shorter than then was restarted.
    func didCommit(logFrames: Int, databasePages: Int) {
        let threshold = min(checkpointFrames, max(minimumFrames, databasePages))
        let due = framesAtLastRequest.withLock { last -> Bool in
            if logFrames < last { last = 0 }
            guard logFrames - last >= threshold else { return false }
            last = logFrames
            return true
        }
        if due { request() }
    }

    func request() {
        let start = state.withLock { state -> Bool in
            if state.running {
                state.requested = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { self.run() } }
    }

    /// Restarts the log on the writer's own connection when a checkpoint found it large and
    /// fully copied; call between write transactions.
    func restartIfDue(_ writer: Database) {
        let due = state.withLock { state in
            guard state.restartDue, writer.logFrames >= state.retryAtFrames else { return false }
            state.restartDue = false
            return true
        }
        guard due else { return }
        restartsTried.add(1, ordering: .relaxed)
        // The first column says whether readers kept the log busy until the wait ran out. A
        // failure is left to the next checkpoint, which finds the log long again.
        let busy = try? writer.withBusyTimeout(milliseconds: Self.restartWaitMilliseconds) {
            try writer.queryOne("PRAGMA wal_checkpoint(RESTART)") { $0.int64(0) }
        }
        if busy == 1 {
            let retryAt = writer.logFrames + max(1, Int(restartFrames / 4))
            state.withLock { state in
                state.restartDue = true
                state.retryAtFrames = retryAt
            }
        }
    }

    /// Whether a restart of the log is pending (tried after a commit once it is due).
    var isRestartDue: Bool { state.withLock { $0.restartDue } }

    /// Returns once no checkpoint is running or queued.
    func waitUntilIdle() {
        queue.sync {}
    }

    private func run() {
        while true {
            // Columns: busy, frames in the log, frames copied into the file. A failure leaves
            // the pages in the log for the next attempt.
            let frames = try? database.withLock { database in
                try database.queryOne("PRAGMA wal_checkpoint(PASSIVE)") { ($0.int64(1), $0.int64(2)) }
            }
            checkpointsRun.add(1, ordering: .relaxed)
            let again = state.withLock { state -> Bool in
                if let (log, copied) = frames ?? nil, log > restartFrames, copied == log {
                    state.restartDue = true
                    state.retryAtFrames = 0
                }
                if state.requested {
                    state.requested = false
                    return true
                }
                state.running = false
                return false
            }
            if !again { return }
        }
    }
}
