// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `serve` under the real Litestream, replicating to a file replica, as the container runs it
/// when a replica is configured (docs/operations.md).
extension ServeLiveTests {
    /// How long an acknowledged request may take to reach the replica, as docs/operations.md
    /// states it for Litestream's default intervals.
    static let replicationWindow = Duration.seconds(5)

    /// How the service ends before the replica is restored.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        /// SIGTERM to Litestream, which stops `serve` and copies the rest of the log.
        case stoppedCleanly
        /// SIGKILL to both in the middle of a stream of requests.
        case killedMidway

        var testDescription: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func aRestoreFromTheReplicaHoldsWhatServeAcknowledged(_ ending: Ending) throws {
        let directory = try TemporaryDirectory()
        let service = try ReplicatedService(in: directory)
        let cutoff: ContinuousClock.Instant
        let stream: AcknowledgedStream
        switch ending {
        case .stoppedCleanly:
            stream = AcknowledgedStream(port: service.port, clients: 3, limit: 60, first: 3_000_000)
            #expect(stream.finish())
            // Litestream copies the rest of the log as it stops, once it has read the ledger.
            #expect(service.waitForFirstSync())
            #expect(service.stop() == 0, "\(service.log.suffix(5))")
            cutoff = .now
        case .killedMidway:
            stream = AcknowledgedStream(port: service.port, clients: 2, limit: 100_000, first: 4_000_000)
            // Killed once the first requests were acknowledged more than the window ago, and
            // well after: those must be in the replica, the last few seconds' need not.
            let window = Self.replicationWindow
            let streamed = stream.wait(upTo: .seconds(120)) { count, first in
                guard let first else { return false }
                return count >= 100 && ContinuousClock.now - first > window + .seconds(2)
            }
            #expect(streamed)
            let killed = ContinuousClock.now
            service.kill()
            stream.stop()
            cutoff = killed - window
        }
        #expect(stream.refused.isEmpty, "\(stream.refused.prefix(3))")

        let restored = directory.file("restored.sqlite")
        try service.restore(to: restored)
        let copy = try Ledger.open(path: restored, reading: true)
        #expect(try copy.integrityCheck() == "ok")
        let transactions = Set(try copy.texts("SELECT transaction_id FROM transactions"))
        let notifications = Set(try copy.texts("SELECT notification_uuid FROM notifications"))
        let acknowledged = stream.acknowledged
        let due = acknowledged.filter { $0.at <= cutoff }
        #expect(due.count >= 100, "only \(due.count) of \(acknowledged.count) acknowledged before the cutoff")
        let missing = due.filter { ack in
            switch ack.item.kind {
            case .transaction: !transactions.contains(ack.item.key)
            case .notification: !notifications.contains(ack.item.key)
            }
        }
        #expect(missing.isEmpty, "\(missing.count) acknowledged requests are not in the replica")

        let reverified = try service.tipledger(["reverify"], on: restored)
        #expect(reverified.status == 0, "\(reverified.errors)")
        if ending == .stoppedCleanly {
            #expect(due.count == acknowledged.count)
            let original = try service.tipledger(["report", "--format", "json"], on: service.databasePath)
            let replica = try service.tipledger(["report", "--format", "json"], on: restored)
            #expect(original.status == 0 && replica.status == 0, "\(original.errors) \(replica.errors)")
            #expect(replica.output == original.output)
        }
    }

    /// Litestream keeps a read transaction on the ledger so that nothing copies the log into the
    /// file past what it has read; it checkpoints the log itself. Just after it starts it holds
    /// none, until its first read (five seconds here): a checkpoint of `serve`'s then, with the
    /// restart of the log after it, writes over frames Litestream never read, and Litestream must
    /// copy the whole ledger again ("snap=true" in its log). With TIPLEDGER_REPLICATED=1 `serve`
    /// leaves the log to Litestream, which reads on from where it stopped.
    @Test func servingAReplicatedLedgerLeavesTheLogForLitestreamToReadOn() throws {
        let directory = try TemporaryDirectory()
        let settings = ["monitor-interval: 5s"]
        let first = try ReplicatedService(in: directory, settings: settings)
        let warmUp = AcknowledgedStream(port: first.port, clients: 2, limit: 30, first: 5_000_000)
        #expect(warmUp.finish())
        #expect(first.waitForUpload())
        #expect(first.stop() == 0, "\(first.log.suffix(5))")
        // The first read of a new replica copies the whole ledger: the log says so.
        #expect(first.snapshots == ["txid=0000000000000001"], "\(first.snapshots)")

        let second = try ReplicatedService(in: directory, settings: settings)
        let stream = AcknowledgedStream(port: second.port, clients: 4, limit: 100_000, first: 6_000_000)
        // Requests until Litestream first reads the log, and some after.
        #expect(second.waitForFirstSync())
        let streamed = stream.acknowledged.count
        #expect(stream.wait(upTo: .seconds(60)) { count, _ in count >= streamed + 50 })
        stream.stop()
        #expect(second.stop() == 0, "\(second.log.suffix(5))")
        #expect(stream.refused.isEmpty, "\(stream.refused.prefix(3))")
        #expect(streamed >= 200, "only \(streamed) requests before Litestream's first read")
        #expect(!second.syncs.isEmpty)
        #expect(
            second.snapshots.isEmpty,
            "Litestream copied the whole ledger again: \(second.syncs.filter { $0.contains(" snap=true") })")

        // No frame lost: the replica's files follow one another, and a restore holds every
        // acknowledged request of both runs.
        let listing = try second.litestream(["ltx", "-json", "-level", "0", "file://\(second.replicaPath)"])
        let files = try #require(try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [[String: Any]])
        let ranges = files.compactMap { file -> (UInt64, UInt64)? in
            guard let low = file["min_txid"] as? String, let high = file["max_txid"] as? String,
                let min = UInt64(low, radix: 16), let max = UInt64(high, radix: 16)
            else { return nil }
            return (min, max)
        }.sorted { $0.0 < $1.0 }
        #expect(!ranges.isEmpty && ranges.count == files.count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $1.0 == $0.1 + 1 }, "\(ranges)")
        let restored = directory.file("restored.sqlite")
        try second.restore(to: restored)
        let copy = try Ledger.open(path: restored, reading: true)
        #expect(try copy.integrityCheck() == "ok")
        let transactions = Set(try copy.texts("SELECT transaction_id FROM transactions"))
        let acknowledged = (warmUp.acknowledged + stream.acknowledged).filter { $0.item.kind == .transaction }
        #expect(acknowledged.allSatisfy { transactions.contains($0.item.key) })
    }
}
