// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import FoundationEssentials
internal import Synchronization
internal import TipLedgerCore
internal import TipLedgerStore

/// Verifies input lines on every core while keeping results in input order, and overlaps the
/// work: while the workers verify the next batches (`batchesAhead`), the calling thread
/// records and prints the one before them. At most `batchesAhead + 1` batches are in memory,
/// however long the input is.
struct VerificationPipeline {
    let verifier: Verifier
    /// Lines per batch: large enough to keep every core busy, small enough to keep memory flat.
    var batchSize = 512
    /// Batches started ahead of the one being consumed. One keeps the workers verifying while
    /// the consumer records a batch; more keep them busy while it waits as well (a commit's
    /// `fdatasync`, which in a large ledger takes longer than the workers need for a batch).
    /// Not with `knownTokens`: the repeats of a batch are looked up while the batch before it
    /// is recorded, and the consumer accounts for what those lookups could not see
    /// (`UnseenChanges`) on that footing.
    var batchesAhead = 1
    var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// The workers' quality of service. Below the calling thread's, the workers yield the CPU
    /// to it whenever both want it (on Linux, `.background` runs them at nice 10): worth it when
    /// the calling thread is the one everything waits for, a ledger's single writer.
    var workerPriority = DispatchQoS.QoSClass.default
    /// Finds the tokens the ledger already holds as verified evidence, by their digests
    /// (`UnverifiedJWS.digest`, one answer per digest, in order), so they need no verification;
    /// called on the worker threads, once per chunk of lines a worker takes. A nil answer (or a
    /// failed lookup) means "verify it".
    var knownTokens: (@Sendable ([[UInt8]]) -> [KnownToken?])? = nil
    /// What became of one line.
    enum Outcome {
        /// Verified (or rejected) now.
        case checked(Result<VerifiedPayload, VerificationError>)
        /// An exact repeat of a token the ledger already holds (see `Ledger.knownTokens`), with
        /// the token as read, for the consumer to verify should the answer be stale.
        case known(KnownToken, UnverifiedJWS)
    }

    struct Item {
        let line: InputLine
        let outcome: Outcome
    }

    /// Reads `reader` to the end, calling `consume` with each batch's items in input order.
    /// Blank lines are skipped. When the input makes it wait (a slow producer, a terminal), the
    /// lines read so far make a batch, and the batch in flight is consumed and `inputWaits`
    /// called before it waits: nothing read stays unanswered meanwhile. `inputEnds` is called
    /// once the input has ended, after every batch but the last was consumed: the workers are
    /// verifying the last one meanwhile.
    func run(
        _ reader: inout LineReader, inputWaits: () throws -> Void = {}, inputEnds: () throws -> Void = {},
        consume: ([Item]) throws -> Void
    ) throws {
        // The first batches are small, so the workers start as soon as a few lines are in,
        // and double up to `batchSize`.
        var size = min(batchSize, Self.firstBatchSize)
        precondition(batchesAhead == 1 || (batchesAhead > 1 && knownTokens == nil), "one batch ahead with lookups")
        // Started and not consumed yet, in input order: up to `batchesAhead` batches, and the
        // pieces of the last.
        var inFlight: [Batch] = []
        while true {
            let lines = readBatch(&reader, size: size, waitForFirst: inFlight.isEmpty)
            if lines.isEmpty, !reader.isFinished, !inFlight.isEmpty {
                for waiting in inFlight { try consume(waiting.items()) }
                inFlight = []
                try inputWaits()
                continue
            }
            if lines.count == size { size = min(batchSize, size * 2) }
            // A batch is consumed once all of it is verified. The last one is started in small
            // pieces, so that the consumer follows the workers closely through it, instead of
            // starting on the whole batch once the workers are done. Not when repeats are looked
            // up: every piece would be looked up before the batch in flight is recorded, where
            // the consumer expects a batch's lookups to miss only the batches recorded since the
            // commit before the one in flight (`UnseenChanges`).
            let next: [Batch]
            if lines.isEmpty {
                next = []
            } else if reader.isFinished && knownTokens == nil {
                next = lines.chunks(of: Self.firstBatchSize).map { start(Array($0)) }
            } else {
                next = [start(lines)]
            }
            while inFlight.count >= batchesAhead { try consume(inFlight.removeFirst().items()) }
            inFlight += next
            if reader.isFinished {
                while inFlight.count > next.count { try consume(inFlight.removeFirst().items()) }
                try inputEnds()
                for batch in inFlight { try consume(batch.items()) }
                return
            }
        }
    }

    /// Lines in the first batch, and in each piece of the last.
    static let firstBatchSize = 128

    /// How long the input may keep a batch waiting before the lines read so far make the batch.
    static let inputPause = Duration.milliseconds(100)
    /// How long a batch of slowly arriving lines is read for, at most.
    static let longestRead = Duration.seconds(1)

    /// How long to wait for more input for a batch whose first line came at `began` (nil: none
    /// yet): `inputPause`, and not at all once it has been read for `longestRead`.
    private static func patience(readingSince began: ContinuousClock.Instant?) -> Duration {
        guard let began, began.duration(to: .now) >= longestRead else { return inputPause }
        return .zero
    }

    /// Up to `size` lines; fewer at the end of the input, or when the input pauses after the
    /// first line (before the first too, unless `waitForFirst`): for `inputPause`, or at all
    /// once the batch has been read for `longestRead`.
    private func readBatch(_ reader: inout LineReader, size: Int, waitForFirst: Bool) -> [InputLine] {
        var lines: [InputLine] = []
        lines.reserveCapacity(size)
        // From the first line, however long the input made the batch wait for it.
        var began: ContinuousClock.Instant? = nil
        while lines.count < size {
            if !(lines.isEmpty && waitForFirst) {
                // A producer a little slower than the workers leaves the pipe empty now and
                // then: answering and committing at each of those moments costs more than
                // waiting a moment for the next lines (docs/performance.md).
                if reader.wouldWait(patience: Self.patience(readingSince: began)) { break }
            }
            guard let line = reader.next() else { break }
            if line.isBlank { continue }
            if began == nil { began = .now }
            lines.append(line)
        }
        return lines
    }

    /// Starts checking a batch in the background: each line is read once (`Verifier.parse`),
    /// looked up as a known token by its digest, and verified unless it is one.
    private func start(_ lines: [InputLine]) -> Batch {
        let workers = min(self.workers, lines.count)
        let batch = Batch(lines: lines, chunkSize: max(1, min(Self.chunkSize, lines.count / (workers * 4))))
        let verifier = self.verifier
        let knownTokens = self.knownTokens
        // One block per worker, each on a thread of the workers' priority (concurrentPerform
        // would run some shares on threads of the default priority).
        let queue = DispatchQueue.global(qos: workerPriority)
        for _ in 0..<workers {
            batch.group.enter()
            queue.async {
                // Lines are taken a chunk at a time, so all workers finish together even when
                // one of them got less of the CPU (the writer's thread shares it).
                while let share = batch.nextChunk() {
                    let read = share.map { Self.read(lines[$0], with: verifier) }
                    let known = knownTokens.map { Self.lookUp(read, with: $0) }
                    for (offset, index) in share.enumerated() {
                        switch read[offset] {
                        case .failure(let rejection):
                            batch.slots.set(index, .checked(.failure(rejection)))
                        case .success(let jws):
                            if let token = known?[offset], Self.answers(jws, with: token) {
                                batch.slots.set(index, .known(token, jws))
                            } else {
                                batch.slots.set(index, .checked(verifier.verify(jws)))
                            }
                        }
                    }
                }
                batch.group.leave()
            }
        }
        return batch
    }

    /// Most lines a worker takes at a time: few enough that workers finish a batch within a few
    /// lines of each other, enough that repeats are looked up many at once. A small batch is
    /// cut finer, into at least four chunks per worker.
    static let chunkSize = 64

    /// The known token for each line read, or nil: lines that are not tokens are not looked up.
    private static func lookUp(
        _ read: [Result<UnverifiedJWS, VerificationError>], with knownTokens: ([[UInt8]]) -> [KnownToken?]
    ) -> [KnownToken?] {
        var answers = knownTokens(read.compactMap { try? $0.get().digest }).makeIterator()
        return read.map { (try? $0.get()) == nil ? nil : answers.next() ?? nil }
    }

    /// Whether `token`, found under the digest of `jws`, answers the line as verifying it
    /// would: a webhook body (`{"signedPayload":...}`) can carry only a notification, so a
    /// stored transaction is no answer to one that wraps it.
    static func answers(_ jws: UnverifiedJWS, with token: KnownToken) -> Bool {
        token.kind == .notification || !jws.isWebhookBody
    }

    /// The line, read once for every later step; or why it is no token.
    static func read(_ line: InputLine, with verifier: Verifier) -> Result<UnverifiedJWS, VerificationError> {
        switch line.content {
        case .text(let text):
            return Result { () throws(VerificationError) in try verifier.parse(line: text) }
        case .tooLong:
            return .failure(
                VerificationError(
                    .tooLarge,
                    "the line is \(line.byteCount) bytes; a line holds at most "
                        + "\(VerificationPolicy.maximumInputBytes) with its line ending"))
        case .notUTF8:
            return .failure(.notUTF8("the line"))
        }
    }

    /// A batch being verified in the background.
    private final class Batch: @unchecked Sendable {
        let lines: [InputLine]
        let slots: ResultSlots<Outcome>
        let group = DispatchGroup()
        /// Lines a worker takes at a time.
        let chunkSize: Int
        /// The first line no worker has taken yet.
        private let taken = Atomic(0)

        init(lines: [InputLine], chunkSize: Int) {
            self.lines = lines
            self.slots = ResultSlots(count: lines.count)
            self.chunkSize = chunkSize
        }

        /// The indexes of the next lines to check, or nil once every line was taken.
        func nextChunk() -> Range<Int>? {
            let start = taken.add(chunkSize, ordering: .relaxed).oldValue
            guard start < lines.count else { return nil }
            return start..<min(start + chunkSize, lines.count)
        }

        /// Waits for the workers, then returns the items in input order.
        func items() -> [Item] {
            group.wait()
            return lines.indices.map { Item(line: lines[$0], outcome: slots.value($0)) }
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements, in order; none for an empty array.
    fileprivate func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
