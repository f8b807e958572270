// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization
public import TipLedgerCore

/// Records verified payloads handed in from many threads (the HTTP service's workers) in shared
/// write transactions, a group commit: a writer of its own takes every payload waiting, records
/// them in one transaction by the ledger's one recording path (`Ledger.record`), commits, and
/// only then tells each submitter its result. While it commits, new payloads wait and become
/// the next group. So a payload waits at most for the commit in progress and then its own, and a
/// commit's `fsync` and the pages it writes are shared by every payload of the group.
///
/// A result told is durable: the `COMMIT` that wrote it returned (the ledger syncs the log on
/// commit). A payload the ledger rejects fails alone and writes nothing, as in `verify`'s
/// batches (`RecordWriter.recordEach`); a failure of the write itself (disk full, the ledger
/// busy past its timeout) fails every payload of the group, none of which was written.
///
/// The queue is bounded: past `queueLimit` payloads waiting, `submit` refuses at once, so a
/// writer that falls behind (a slow disk) makes callers retry rather than wait ever longer.
public final class GroupCommitter: Sendable {
    /// What becomes of a submitted payload: its record, or the ledger's rejection of it
    /// (`VerificationError`), or the failure of its group's write.
    public typealias Completion = @Sendable (Result<RecordResult, any Error>) -> Void

    /// The most payloads one transaction takes: the rest wait for the next, so a long queue is
    /// answered in steps rather than all after one long commit.
    public static let largestGroup = 1024

    /// The default `queueLimit`: well past what the workers verify while one commit runs, so
    /// only a writer that has fallen behind (a slow disk, another process holding the write
    /// lock) reaches it, and short enough that what waits is answered within a fraction of a
    /// second at the rates of docs/performance.md.
    public static let defaultQueueLimit = 1024

    private struct Waiting {
        let payload: VerifiedPayload
        let completion: Completion
    }

    private struct State {
        var queue: [Waiting] = []
        /// Whether the writer is taking groups (it stops when the queue is empty).
        var writing = false
    }

    let ledger: Ledger
    /// Whether new transactions are recorded as finished (delivered).
    let finish: Bool
    /// The most payloads that may wait for the writer.
    public let queueLimit: Int
    private let state = Mutex(State())
    private let writer = DispatchQueue(label: "tipledger.group-commit", qos: .userInitiated)
    /// Groups committed (or failed) so far.
    let groups = Atomic(0)

    /// Payloads waiting for the writer to take them.
    var waiting: Int { state.withLock { $0.queue.count } }

    /// The groups written so far, committed or failed: the payloads recorded over this is the
    /// mean group.
    public var groupsWritten: Int { groups.load(ordering: .relaxed) }

    public init(ledger: Ledger, finish: Bool, queueLimit: Int = GroupCommitter.defaultQueueLimit) {
        precondition(queueLimit >= 1, "a queue that holds nothing refuses everything")
        self.ledger = ledger
        self.finish = finish
        self.queueLimit = queueLimit
    }

    /// Queues `payload` for the next group; `completion` is called on the writer's thread once
    /// the group's transaction committed (or failed), and must return at once. False, without
    /// queueing it or calling `completion`, when `queueLimit` payloads wait already.
    public func submit(_ payload: VerifiedPayload, completion: @escaping Completion) -> Bool {
        let start: Bool? = state.withLock { state in
            guard state.queue.count < queueLimit else { return nil }
            state.queue.append(Waiting(payload: payload, completion: completion))
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        guard let start else { return false }
        if start { writer.async { self.write() } }
        return true
    }

    /// Takes group after group until none waits.
    private func write() {
        while true {
            let group: [Waiting] = state.withLock { state in
                let taken = Array(state.queue.prefix(Self.largestGroup))
                state.queue.removeFirst(taken.count)
                if taken.isEmpty { state.writing = false }
                return taken
            }
            guard !group.isEmpty else { return }
            let results: [Result<RecordResult, any Error>]
            do {
                results = try ledger.record(group.map(\.payload), finish: finish).map {
                    $0.mapError { $0 as any Error }
                }
            } catch {
                results = Array(repeating: .failure(error), count: group.count)
            }
            groups.add(1, ordering: .relaxed)
            for (waiting, result) in zip(group, results) { waiting.completion(result) }
        }
    }
}
