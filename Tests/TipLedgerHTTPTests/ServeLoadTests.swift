// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

#if canImport(Glibc)
    import Glibc
#endif

extension ServeLiveTests {
    /// A bounded load on the real binary (a debug build): 8 client threads × 500 requests on one
    /// keep-alive connection each, then every accepted request is checked in the ledger.
    ///
    /// Clients work in pairs that send some of the same tokens at about the same moment, so the
    /// ledger sees real concurrent duplicates. Each client's 500 requests repeat five slots:
    /// its own new transaction, its partner's transaction (a racing duplicate), the pair's
    /// REFUND of the first client's transaction (a racing duplicate notification), a restore
    /// of its account (a read beside the writes) and its own transaction again (a plain
    /// duplicate). So 2,400 of the 4,000 requests verify a signature and 1,600 write, which
    /// keeps a debug build on two cores at about ten seconds. Every token is signed before
    /// the clock starts.
    @Test func concurrentClientsGetEveryRequestRecordedExactlyOnce() throws {
        let clients = 8
        let requestsPerClient = 500
        let rounds = requestsPerClient / 5

        let transactions: [[SignedItem]] = try parallelMap(0..<clients) { client in
            try (0..<rounds).map { round in
                try SignedItem.transaction(
                    id: LoadPlan.transactionId(client: client, round: round), account: LoadPlan.account(client))
            }
        }
        let refunds: [[SignedItem]] = try parallelMap(0..<(clients / 2)) { pair in
            try (0..<rounds).map { round in
                let refunded = try TestChains.transaction(
                    id: LoadPlan.transactionId(client: 2 * pair, round: round), account: LoadPlan.account(2 * pair))
                let uuid = LoadPlan.refundUUID(pair: pair, round: round)
                let jws = try TestChains.notification(
                    type: "REFUND", uuid: uuid, signedDate: TestChains.referenceMilliseconds + 3_600_000,
                    around: refunded)
                return SignedItem.notification(jws, uuid: uuid)
            }
        }
        let service = try LiveService()
        let port = service.port

        let answers = Mutex<[Answer]>([])
        let notificationLatencies = Mutex<[Duration]>([])
        let failures = Mutex<[String]>([])
        let clock = ContinuousClock()
        let started = clock.now
        let finished = runOnThreads(clients, timeout: .seconds(240)) { client in
            let connection = KeepAliveClient(port: port)
            var mine: [Answer] = []
            var latencies: [Duration] = []
            func post(_ item: SignedItem) throws(LoopbackError) {
                let sent = clock.now
                let response = try connection.exchange("POST", item.path, body: item.body)
                if item.kind == .notification { latencies.append(clock.now - sent) }
                let outcome = (try? jsonObject(response.body))?["outcome"] as? String
                mine.append(Answer(item: item, status: response.status, outcome: outcome))
            }
            do {
                for round in 0..<rounds {
                    try post(transactions[client][round])
                    try post(transactions[client ^ 1][round])
                    try post(refunds[client / 2][round])
                    let restore = try connection.exchange(
                        "GET", "/v1/accounts/\(LoadPlan.account(client))/transactions", headers: ServeLiveTests.bearer)
                    if restore.status != 200 { failures.withLock { $0.append("restore: \(restore.status)") } }
                    try post(transactions[client][round])
                }
            } catch {
                failures.withLock { $0.append("client \(client): \(error)") }
            }
            answers.withLock { $0 += mine }
            notificationLatencies.withLock { $0 += latencies }
        }
        let elapsed = clock.now - started
        let status = service.stop()
        #expect(status == 0, "\(service.diagnostics)")

        #expect(finished)
        #expect(failures.withLock { $0 } == [])
        let seen = answers.withLock { $0 }
        #expect(seen.count == clients * rounds * 4)
        #expect(seen.allSatisfy { $0.status == 200 }, "\(Set(seen.compactMap(\.status)))")
        #expect(service.accessLog.count == clients * requestsPerClient)
        let errors = service.child.errors.text
        for secret in ["eyJ", LiveService.apiToken] + (0..<clients).map(LoadPlan.account) {
            #expect(!errors.contains(secret), "standard error shows \(secret)")
        }

        // Each transaction was recorded by exactly one answer and found a duplicate by the rest;
        // each REFUND applied by exactly one of its pair.
        let byKey = Dictionary(grouping: seen, by: \.item.key)
        #expect(byKey.count == clients * rounds + clients / 2 * rounds)
        for (key, answers) in byKey {
            let outcomes = answers.compactMap(\.outcome).sorted()
            let expected =
                answers[0].item.kind == .transaction
                ? ["duplicate", "duplicate", "recorded"] : ["applied", "duplicate"]
            #expect(outcomes == expected, "\(key)")
        }

        // The ledger holds every accepted request exactly once.
        let ledger = try service.openLedger()
        #expect(try ledger.integer("SELECT count(*) FROM transactions") == Int64(clients * rounds))
        #expect(try ledger.integer("SELECT count(*) FROM notifications") == Int64(clients / 2 * rounds))
        let recordedTwice = try ledger.texts(
            "SELECT transaction_id FROM events WHERE kind = 'recorded' GROUP BY transaction_id HAVING count(*) <> 1")
        #expect(recordedTwice == [])
        #expect(try ledger.integer("SELECT count(*) FROM events WHERE kind = 'recorded'") == Int64(clients * rounds))
        let refundedTwice = try ledger.texts(
            "SELECT source FROM events WHERE kind = 'refunded' GROUP BY source HAVING count(*) <> 1")
        #expect(refundedTwice == [])
        #expect(
            try ledger.integer("SELECT count(*) FROM events WHERE kind = 'refunded'") == Int64(clients / 2 * rounds))
        // Each token is kept once as evidence: every transaction's own, and for the refunded ones
        // the REFUND's newer copy besides the notification itself.
        let evidenceMismatches = try ledger.texts(
            """
            SELECT transaction_id FROM evidence WHERE kind = 'transaction' GROUP BY transaction_id
            HAVING count(*) <> 1 + (SELECT count(*) FROM transactions t
                WHERE t.transaction_id = evidence.transaction_id AND t.state = 'refunded')
            """)
        #expect(evidenceMismatches == [])
        #expect(
            try ledger.integer("SELECT count(*) FROM evidence") == Int64(clients * rounds + clients * rounds / 2 * 2))
        #expect(
            try ledger.integer("SELECT count(*) FROM transactions WHERE state = 'refunded'")
                == Int64(clients / 2 * rounds))
        #expect(try ledger.integrityCheck() == "ok")

        // Figures for people, kept as an attachment (swift test --attachments-path DIR).
        let latencies = notificationLatencies.withLock { $0 }.sorted()
        func milliseconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
        }
        let seconds = (milliseconds(elapsed) / 10).rounded() / 100
        if !latencies.isEmpty {
            let p50 = milliseconds(latencies[latencies.count / 2])
            let p99 = milliseconds(latencies[min(latencies.count - 1, latencies.count * 99 / 100)])
            Attachment.record(
                """
                debug build, \(clients) clients x \(requestsPerClient) requests in \(seconds) s: \
                \(Int(Double(clients * requestsPerClient) / seconds)) requests/s; \
                POST /v1/notifications: \(latencies.count) requests (\(Int(Double(latencies.count) / seconds))/s), \
                p50 \(p50) ms, p99 \(p99) ms

                """, named: "service-load.txt")
        }
    }
}

/// The keys of the load test's tokens.
enum LoadPlan {
    @Sendable static func transactionId(client: Int, round: Int) -> String {
        String(3_000_000_000 + client * 10_000 + round)
    }

    @Sendable static func account(_ client: Int) -> String { TestChains.uuid(700_000 + client) }

    @Sendable static func refundUUID(pair: Int, round: Int) -> String {
        TestChains.uuid(710_000 + pair * 1000 + round)
    }
}

/// `transform` of each element, computed on several threads at once, in order.
func parallelMap<Result: Sendable>(
    _ range: Range<Int>, _ transform: @Sendable (Int) throws -> Result
) throws -> [Result] {
    let results = Mutex<[Int: Swift.Result<Result, any Error>]>([:])
    DispatchQueue.concurrentPerform(iterations: range.count) { offset in
        let result = Swift.Result { try transform(range.lowerBound + offset) }
        results.withLock { $0[offset] = result }
    }
    let collected = results.withLock { $0 }
    return try (0..<range.count).map { try collected[$0]!.get() }
}
