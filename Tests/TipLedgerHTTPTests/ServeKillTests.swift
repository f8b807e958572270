// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

@testable import TipLedgerStore

#if canImport(Glibc)
    import Glibc
#endif

extension ServeLiveTests {
    /// A 200 means durable: `serve` killed with SIGKILL in the middle of a stream of requests
    /// from several clients, again and again on the same ledger, loses none it acknowledged, and
    /// the ledger it leaves opens sound for the next run. The client that reads the 120th
    /// acknowledgement of a run kills the service at once, while the other clients' requests
    /// are being recorded: an answer given before its commit wrote to the log would be lost.
    @Test func everyAcknowledgedRequestSurvivesSIGKILLInTheMiddleOfALoad() throws {
        let directory = try TemporaryDirectory()
        var acknowledged: [AcknowledgedStream.Acknowledgement] = []
        var refused: [String] = []
        for round in 0..<4 {
            let service = try LiveService(directory: directory)
            let serve = service.child.processIdentifier
            let stream = AcknowledgedStream(
                port: service.port, clients: 8, limit: 100_000, first: 10_000_000 + round * 1_000_000
            ) { count in
                if count == 120 { Glibc.kill(serve, SIGKILL) }
            }
            #expect(service.child.waitForExit(upTo: .seconds(120)) == 128 + SIGKILL, "round \(round)")
            #expect(stream.stop())
            acknowledged += stream.acknowledged
            refused += stream.refused
        }
        #expect(refused.isEmpty, "\(refused.prefix(3))")

        let ledger = try Ledger.open(path: directory.file("ledger.sqlite"), reading: true)
        #expect(try ledger.integrityCheck() == "ok")
        let transactions = Set(try ledger.texts("SELECT transaction_id FROM transactions"))
        let notifications = Set(try ledger.texts("SELECT notification_uuid FROM notifications"))
        let missing = acknowledged.filter { ack in
            switch ack.item.kind {
            case .transaction: !transactions.contains(ack.item.key)
            case .notification: !notifications.contains(ack.item.key)
            }
        }
        #expect(acknowledged.count >= 4 * 120)
        #expect(
            missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged requests are not in the ledger")
    }
}
