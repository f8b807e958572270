// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import TipLedgerCore

/// Verifies input lines on every core while keeping results in input order.
///
/// Lines are read in batches; each batch is verified in parallel (`concurrentPerform`), then
/// handed, in order, to `consume` on the calling thread. Memory is bounded by one batch.
struct VerificationPipeline {
    let verifier: Verifier
    /// Lines per batch: large enough to keep every core busy, small enough to keep memory flat.
    var batchSize = 512
    var workers = max(1, ProcessInfoLite.activeProcessorCount)

    /// One verified (or rejected) line.
    struct Item {
        let line: InputLine
        let result: Result<VerifiedPayload, VerificationError>
    }

    /// Reads `reader` to the end, calling `consume` with each batch's results in input order.
    /// Blank lines are skipped.
    func run(_ reader: inout LineReader, consume: ([Item]) throws -> Void) rethrows {
        var batch: [InputLine] = []
        batch.reserveCapacity(batchSize)
        while let line = reader.next() {
            if let text = line.text, isBlank(text) { continue }
            batch.append(line)
            if batch.count == batchSize {
                try consume(verify(batch))
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try consume(verify(batch)) }
    }

    func verify(_ lines: [InputLine]) -> [Item] {
        let slots = ResultSlots(count: lines.count)
        let verifier = self.verifier
        let workers = min(self.workers, lines.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var index = worker
            while index < lines.count {
                slots.set(index, Self.verify(lines[index], with: verifier))
                index += workers
            }
        }
        return zip(lines, slots.results).map { Item(line: $0, result: $1) }
    }

    static func verify(_ line: InputLine, with verifier: Verifier) -> Result<VerifiedPayload, VerificationError> {
        guard let text = line.text else {
            return .failure(
                VerificationError(
                    .tooLarge,
                    "the line is \(line.byteCount) bytes; the limit is \(VerificationPolicy.maximumTokenBytes)"))
        }
        return verifier.verify(text)
    }

    private func isBlank(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }
    }
}

/// Result slots written by several threads, each to its own index, then read by one.
private final class ResultSlots: @unchecked Sendable {
    /// Allocated once and never moved. (An array's `withUnsafeMutableBufferPointer` is a
    /// mutating access of the whole array: when two workers overlapped, one could find the
    /// buffer shared, copy it and store the copy over the other's results, and `results` then
    /// crashed on a nil slot.)
    private let storage: UnsafeMutableBufferPointer<Result<VerifiedPayload, VerificationError>?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    /// Safe without a lock: each index is written by exactly one worker, and `results` is read
    /// only after `concurrentPerform` has returned (all workers finished).
    func set(_ index: Int, _ result: Result<VerifiedPayload, VerificationError>) {
        storage[index] = result
    }

    var results: [Result<VerifiedPayload, VerificationError>] { storage.map { $0! } }
}
