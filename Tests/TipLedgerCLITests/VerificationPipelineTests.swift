// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerCLI
@testable import TipLedgerStore

/// `VerificationPipeline`: whatever the batch size and however many workers, every line comes
/// back once, in input order, with its own outcome.
@Suite struct VerificationPipelineTests {
    /// Line `n` (1-based) of the input: garbage every third line, else a valid token with id
    /// 2000000000100000+n (which the "ledger" knows on every fifth line).
    private static func input(lines: Int) throws -> [String] {
        try (1...lines).map { number in
            number % 3 == 0 ? "garbage \(number)" : try TestChains.transaction(id: "\(2_000_000_000_100_000 + number)")
        }
    }

    /// `count` valid tokens, one per line.
    private static func tokens(_ count: Int) throws -> [String] {
        try (1...count).map { try TestChains.transaction(id: "\(2_000_000_000_200_000 + $0)") }
    }

    private static func lineReader(_ lines: [String], in directory: TemporaryDirectory) throws -> LineReader {
        let path = directory.file("input.txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        return LineReader(fileDescriptor: descriptor, maximumLineBytes: 1 << 16)
    }

    @Test(arguments: [1, 7, 16, 200])
    func outcomesComeBackInInputOrder(batchSize: Int) throws {
        let lines = try Self.input(lines: 60)
        let directory = try TemporaryDirectory(prefix: "pipeline")
        var reader = try Self.lineReader(lines, in: directory)
        defer { close(reader.fileDescriptor) }
        let knownDigests = Set(
            lines.enumerated().filter { ($0.offset + 1) % 5 == 0 && ($0.offset + 1) % 3 != 0 }.map {
                SHA256.hash($0.element.utf8)
            })
        let lookups = Atomic(0)
        var pipeline = VerificationPipeline(verifier: TestChains.standardVerifier)
        pipeline.batchSize = batchSize
        pipeline.workers = 3
        pipeline.knownTokens = { digests in
            lookups.add(digests.count, ordering: .relaxed)
            return digests.map { digest in
                guard knownDigests.contains(digest) else { return nil }
                return KnownToken(
                    kind: .transaction, environment: .sandbox,
                    result: RecordResult(outcome: .duplicate, transactionId: "known", state: .finished, finished: true),
                    productId: nil, account: nil, notificationUUID: nil, notificationType: nil, subtype: nil)
            }
        }
        var seen: [Int] = []
        try pipeline.run(&reader) { items in
            for item in items {
                let number = item.line.number
                seen.append(number)
                switch item.outcome {
                case .known(let known, let jws):
                    #expect(number % 5 == 0 && number % 3 != 0, "line \(number)")
                    #expect(known.result.transactionId == "known")
                    #expect(jws.token == lines[number - 1])
                case .checked(.success(let payload)):
                    #expect(number % 3 != 0 && number % 5 != 0, "line \(number)")
                    guard case .transaction(let transaction) = payload else {
                        Issue.record("line \(number) is not a transaction")
                        continue
                    }
                    #expect(transaction.transactionId == "\(2_000_000_000_100_000 + number)")
                    #expect(transaction.evidence.digest == SHA256.hash(lines[number - 1].utf8))
                case .checked(.failure(let error)):
                    #expect(number % 3 == 0, "line \(number): \(error)")
                    #expect(error.code == .malformedJWS)
                }
            }
        }
        #expect(seen == Array(1...60))
        // Every line that is a token was looked up exactly once; garbage has no digest.
        #expect(lookups.load(ordering: .relaxed) == 40)
    }

    /// Batches started ahead of the one being consumed (no lookups) come back as one batch
    /// ahead does: every line once, in input order, with its own outcome.
    @Test(arguments: [
        (batchSize: 1, ahead: 4), (batchSize: 7, ahead: 3), (batchSize: 16, ahead: 2), (batchSize: 200, ahead: 5),
    ])
    func batchesStartedAheadComeBackInInputOrder(batchSize: Int, ahead: Int) throws {
        let lines = try Self.input(lines: 60)
        let directory = try TemporaryDirectory(prefix: "pipeline")
        var reader = try Self.lineReader(lines, in: directory)
        defer { close(reader.fileDescriptor) }
        var pipeline = VerificationPipeline(verifier: TestChains.standardVerifier)
        pipeline.batchSize = batchSize
        pipeline.batchesAhead = ahead
        pipeline.workers = 3
        var seen: [Int] = []
        var batches = 0
        try pipeline.run(&reader) { items in
            batches += 1
            for item in items {
                let number = item.line.number
                seen.append(number)
                switch item.outcome {
                case .checked(.success(.transaction(let transaction))):
                    #expect(number % 3 != 0, "line \(number)")
                    #expect(transaction.transactionId == "\(2_000_000_000_100_000 + number)")
                case .checked(.failure(let error)):
                    #expect(number % 3 == 0 && error.code == .malformedJWS, "line \(number): \(error)")
                default:
                    Issue.record("line \(number): \(item.outcome)")
                }
            }
        }
        #expect(seen == Array(1...60))
        #expect(batches >= 60 / batchSize)
    }

    /// Looked up or not, each verified line carries its token's digest, for the ledger to key
    /// its evidence on: read once by the workers, never hashed again.
    @Test func everyVerifiedLineCarriesItsTokensDigest() throws {
        let lines = try Self.input(lines: 10)
        let directory = try TemporaryDirectory(prefix: "pipeline")
        var reader = try Self.lineReader(lines.map { "  \($0)\r" }, in: directory)
        defer { close(reader.fileDescriptor) }
        var digests: [Int: [UInt8]] = [:]
        try VerificationPipeline(verifier: TestChains.standardVerifier).run(&reader) { items in
            for item in items {
                guard case .checked(.success(.transaction(let transaction))) = item.outcome else { continue }
                digests[item.line.number] = transaction.evidence.digest
            }
        }
        #expect(digests.count == 7)  // every third line is malformed
        for (number, digest) in digests {
            #expect(digest == SHA256.hash(lines[number - 1].utf8), "line \(number)")
        }
    }

    /// Workers take a batch's lines a few at a time: a worker held up (here, the first to ask)
    /// leaves the rest of the batch to the others instead of half of it waiting for it.
    @Test func aWorkerHeldUpLeavesItsShareToTheOthers() throws {
        let lines = try Self.tokens(64)
        let directory = try TemporaryDirectory(prefix: "pipeline")
        var reader = try Self.lineReader(lines, in: directory)
        defer { close(reader.fileDescriptor) }
        var pipeline = VerificationPipeline(verifier: TestChains.standardVerifier)
        pipeline.workers = 2
        // A batch of 64 lines on two workers is taken in chunks of eight.
        let chunk = 8
        let firstCall = Atomic(true)
        let seen = Atomic(0)
        // Signalled once the other worker has looked up every line but the held-up one's chunk.
        let restTaken = DispatchSemaphore(value: 0)
        let linesByThread = Mutex<[UInt: Int]>([:])
        pipeline.knownTokens = { digests in
            if firstCall.exchange(false, ordering: .relaxed) {
                // Should the other worker never take the rest, the counts below tell.
                _ = restTaken.wait(timeout: .now() + .seconds(120))
            } else if seen.add(digests.count, ordering: .relaxed).newValue == lines.count - chunk {
                restTaken.signal()
            }
            linesByThread.withLock { $0[pthread_self(), default: 0] += digests.count }
            return digests.map { _ in nil }
        }
        var consumed = 0
        try pipeline.run(&reader) { consumed += $0.count }
        #expect(consumed == 64)
        let counts = linesByThread.withLock { Array($0.values) }.sorted()
        // The worker held up took one chunk, the other everything else.
        #expect(counts == [chunk, lines.count - chunk], "\(counts)")
    }

    /// The end of the input is told once, before the last batch is handed over and after
    /// every batch before it.
    @Test(arguments: [
        (lines: 10, events: ["4", "4", "end", "2"]), (lines: 8, events: ["4", "4", "end"]),
        (lines: 3, events: ["end", "3"]), (lines: 0, events: ["end"]),
    ])
    func theEndOfTheInputIsToldOnceBeforeTheLastBatch(lines count: Int, events expected: [String]) throws {
        for ahead in [1, 3] {
            let directory = try TemporaryDirectory(prefix: "pipeline")
            var reader = try Self.lineReader(Array(try Self.input(lines: 10).prefix(count)), in: directory)
            defer { close(reader.fileDescriptor) }
            var pipeline = VerificationPipeline(verifier: TestChains.standardVerifier)
            pipeline.batchSize = 4
            pipeline.batchesAhead = ahead
            var events: [String] = []
            try pipeline.run(&reader, inputEnds: { events.append("end") }) { events.append("\($0.count)") }
            #expect(events == expected, "\(ahead) batches ahead")
        }
    }

    /// The batches before the last come whole, doubling from 128 lines; the last is handed
    /// over in pieces of 128, so that the consumer follows the workers through it.
    @Test func theLastBatchComesInPieces() throws {
        let directory = try TemporaryDirectory(prefix: "pipeline")
        var reader = try Self.lineReader(try Self.input(lines: 700), in: directory)
        defer { close(reader.fileDescriptor) }
        var numbers: [Int] = []
        var sizes: [Int] = []
        try VerificationPipeline(verifier: TestChains.standardVerifier).run(&reader) { items in
            sizes.append(items.count)
            numbers += items.map(\.line.number)
        }
        #expect(sizes == [128, 256, 128, 128, 60])
        #expect(numbers == Array(1...700))
    }

    /// When repeats are looked up, the last batch comes whole: the consumer's account of what
    /// a batch's lookups may have missed (`UnseenChanges`) holds for one batch in flight.
    @Test func theLastBatchComesWholeWhenRepeatsAreLookedUp() throws {
        let directory = try TemporaryDirectory(prefix: "pipeline")
        var reader = try Self.lineReader(try Self.input(lines: 700), in: directory)
        defer { close(reader.fileDescriptor) }
        var pipeline = VerificationPipeline(verifier: TestChains.standardVerifier)
        pipeline.knownTokens = { digests in digests.map { _ in nil } }
        var sizes: [Int] = []
        try pipeline.run(&reader) { sizes.append($0.count) }
        #expect(sizes == [128, 256, 316])
    }

    #if os(Linux)
        /// Workers given a lower quality of service run at a lower scheduling priority (a higher
        /// nice value) than the thread that consumes the batches, so it wins the CPU from them.
        @Test func backgroundWorkersYieldToTheConsumer() throws {
            let lines = try Self.input(lines: 8)
            let directory = try TemporaryDirectory(prefix: "pipeline")
            var reader = try Self.lineReader(lines, in: directory)
            defer { close(reader.fileDescriptor) }
            let workerNice = Mutex<Set<Int32>>([])
            var pipeline = VerificationPipeline(verifier: TestChains.standardVerifier)
            pipeline.workers = 2
            pipeline.workerPriority = .background
            let workerThreads = Mutex<Set<UInt>>([])
            pipeline.knownTokens = { digests in
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                workerNice.withLock { _ = $0.insert(nice) }
                workerThreads.withLock { _ = $0.insert(pthread_self()) }
                return digests.map { _ in nil }
            }
            var consumed = 0
            try pipeline.run(&reader) { consumed += $0.count }
            #expect(consumed == 8)
            let consumerNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            let seen = workerNice.withLock { $0 }
            // The workers ran on threads of their own, however many the machine gave them.
            let threads = workerThreads.withLock { $0 }
            #expect(!threads.isEmpty && !threads.contains(pthread_self()))
            #expect(
                !seen.isEmpty && seen.allSatisfy { $0 > consumerNice },
                "workers at nice \(seen), the consumer at \(consumerNice)")
        }
    #endif
}
