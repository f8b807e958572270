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
    private var storage: [Result<VerifiedPayload, VerificationError>?]

    init(count: Int) {
        storage = Array(repeating: nil, count: count)
    }

    /// Safe without a lock: each index is written by exactly one worker, and the array is not
    /// resized while workers run (`concurrentPerform` returns only after all have finished).
    func set(_ index: Int, _ result: Result<VerifiedPayload, VerificationError>) {
        storage.withUnsafeMutableBufferPointer { $0[index] = result }
    }

    var results: [Result<VerifiedPayload, VerificationError>] { storage.map { $0! } }
}
