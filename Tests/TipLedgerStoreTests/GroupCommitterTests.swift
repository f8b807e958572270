// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Payloads submitted from many threads share write transactions; each learns its own result
/// once its transaction committed.
@Suite struct GroupCommitterTests {
    /// Submits every payload while the ledger's writing connection is held, so they all wait
    /// for the writer together, then lets the writer go: each payload's result, in order.
    func resultsOfOneQueue(_ payloads: [VerifiedPayload], into store: TestLedger, committer: GroupCommitter) throws
        -> [Result<RecordResult, any Error>]
    {
        let results = Mutex<[Int: Result<RecordResult, any Error>]>([:])
        let told = DispatchGroup()
        let queued = try store.ledger.withDatabase { _ in
            payloads.indices.map { index in
                told.enter()
                return committer.submit(payloads[index]) { result in
                    results.withLock { $0[index] = result }
                    told.leave()
                }
            }
        }
        #expect(queued.allSatisfy { $0 })
        #expect(told.wait(timeout: .now() + 60) == .success)
        let collected = results.withLock { $0 }
        return payloads.indices.compactMap { collected[$0] }
    }

    @Test func aPayloadTheLedgerRejectsFailsAloneAndTheRestOfItsGroupIsRecorded() throws {
        let store = try TestLedger()
        let committer = GroupCommitter(ledger: store.ledger, finish: true)
        let rejected = 3
        let payloads = try (0..<8).map { index in
            try TestChains.verified(
                try TestChains.transaction(id: String(2_000_000_000_100 + index), price: index == rejected ? -1 : 990))
        }
        let results = try resultsOfOneQueue(payloads, into: store, committer: committer)
        #expect(results.count == payloads.count)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let recorded):
                #expect(index != rejected)
                #expect(recorded.outcome == .recorded)
            case .failure(let error):
                #expect(index == rejected)
                #expect((error as? VerificationError)?.code == .invalidPayload, "\(error)")
            }
        }
        // The writer may have taken the first payload alone before the rest queued; all the
        // others wait together.
        #expect(committer.groups.load(ordering: .relaxed) <= 2)
        #expect(try store.count("transactions") == Int64(payloads.count - 1))
    }

    @Test func eachResultIsToldOnlyOnceItsTransactionCommitted() throws {
        let store = try TestLedger()
        let committer = GroupCommitter(ledger: store.ledger, finish: true)
        let counts = Mutex<[Int64]>([])
        let told = DispatchGroup()
        let path = store.path
        for index in 0..<16 {
            told.enter()
            let payload = try TestChains.verified(try TestChains.transaction(id: String(2_000_000_000_200 + index)))
            let queued = committer.submit(payload) { result in
                // Another connection sees only what was committed.
                let reader = try? Ledger.open(path: path, reading: true)
                let seen = try? reader?.withReader { database in
                    try database.queryOne(
                        "SELECT count(*) FROM transactions WHERE transaction_id = ?", String(2_000_000_000_200 + index)
                    ) { $0.int64(0) }
                }
                counts.withLock { $0.append(((try? result.get()) != nil && seen == 1) ? 1 : 0) }
                told.leave()
            }
            #expect(queued)
        }
        #expect(told.wait(timeout: .now() + 60) == .success)
        #expect(counts.withLock { $0 } == Array(repeating: 1, count: 16))
    }

    @Test func pastTheQueueLimitASubmissionIsRefusedAtOnce() throws {
        let store = try TestLedger()
        let limit = 2
        let committer = GroupCommitter(ledger: store.ledger, finish: true, queueLimit: limit)
        let payloads = try (0..<(2 * limit + 1)).map { index in
            try TestChains.verified(try TestChains.transaction(id: String(2_000_000_000_300 + index)))
        }
        let told = DispatchGroup()
        let queued = try store.ledger.withDatabase { _ in
            payloads.map { payload in
                told.enter()
                let queued = committer.submit(payload) { _ in told.leave() }
                if !queued { told.leave() }
                return queued
            }
        }
        #expect(told.wait(timeout: .now() + 60) == .success)
        // While the writer is held, it has taken at most one group (of at most `limit`, all that
        // waited then) and `limit` more wait: the last of 2 × `limit` + 1 is always refused.
        let accepted = queued.filter { $0 }.count
        #expect(queued.last == false)
        #expect(accepted >= limit && accepted <= 2 * limit, "\(queued)")
        #expect(queued.drop { $0 }.allSatisfy { !$0 }, "once refused, refused until the writer moves: \(queued)")
        #expect(try store.count("transactions") == Int64(queued.filter { $0 }.count))
    }
}
