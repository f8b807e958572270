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

/// One request a live test sends: a transaction or a notification, named by the key the ledger
/// stores it under.
struct SignedItem: Sendable {
    enum Kind: Sendable { case transaction, notification }

    let kind: Kind
    /// The transactionId or notificationUUID.
    let key: String
    let path: String
    let body: [UInt8]

    static func transaction(id: String, account: String = ServiceHarness.account) throws -> SignedItem {
        SignedItem(
            kind: .transaction, key: id, path: "/v1/transactions",
            body: Array(try TestChains.transaction(id: id, account: account).utf8))
    }

    static func notification(_ jws: String, uuid: String) -> SignedItem {
        SignedItem(
            kind: .notification, key: uuid, path: "/v1/notifications", body: Array(WebhookBody.wrapping(jws).utf8))
    }
}

/// What a client thread saw for one request: the status, or nil when no response came.
struct Answer: Sendable {
    let item: SignedItem
    let status: Int?
    let outcome: String?
}

extension ServeLiveTests {
    @Test func sigtermFinishesRequestsInFlightThenExitsZero() throws {
        let clients = 6
        let perClient = 60
        // Signed up front: each client alternates new transactions and TEST notifications.
        let items: [[SignedItem]] = try (0..<clients).map { client in
            try (0..<perClient).map { index in
                let number = 600_000 + client * 1000 + index
                return index % 2 == 0
                    ? try SignedItem.transaction(id: String(2_000_000_000_000_000 + number))
                    : SignedItem.notification(
                        try TestChains.notification(type: "TEST", uuid: TestChains.uuid(number)),
                        uuid: TestChains.uuid(number))
            }
        }
        let slowUUID = TestChains.uuid(699_999)
        let slow = SignedItem.notification(
            try TestChains.notification(type: "TEST", uuid: slowUUID), uuid: slowUUID)
        let service = try LiveService()
        let port = service.port

        // A request in flight across the signal: its head and the start of its body now, the
        // rest only once the service is stopping.
        let slowConnection = try service.connect()
        try slowConnection.send(
            "POST /v1/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(slow.body.count)\r\n\r\n")
        try slowConnection.send(Array(slow.body[..<100]))

        // Clients post until nothing accepts their connections any more (or their items run out).
        let answers = Mutex<[Answer]>([])
        let answered = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for client in 0..<clients {
            done.enter()
            let mine = items[client]
            Thread {
                defer { done.leave() }
                let connection = KeepAliveClient(port: port)
                for item in mine {
                    do throws(LoopbackError) {
                        let response = try connection.exchange("POST", item.path, body: item.body)
                        let outcome = (try? jsonObject(response.body))?["outcome"] as? String
                        answers.withLock { $0.append(Answer(item: item, status: response.status, outcome: outcome)) }
                        answered.signal()
                    } catch .connectFailed {
                        return
                    } catch {
                        answers.withLock { $0.append(Answer(item: item, status: nil, outcome: nil)) }
                    }
                }
            }.start()
        }
        // Busy: some answers are in before the signal.
        for _ in 0..<24 {
            #expect(answered.wait(timeout: .now() + 60) == .success)
        }

        service.child.send(SIGTERM)
        #expect(service.child.errors.wait(upTo: .seconds(60)) { $0.contains("received signal 15") })
        // Impatience (a second SIGTERM, a Ctrl-C) during the drain changes nothing.
        service.child.send(SIGTERM)
        service.child.send(SIGINT)
        #expect(waitForRefusal(port: port, within: .seconds(60)))
        try slowConnection.send(Array(slow.body[100...]))
        let slowResponse = try slowConnection.readResponse()
        let status = service.child.waitForExit(upTo: .seconds(60))
        let clientsFinished = done.wait(timeout: .now() + 60) == .success

        #expect(status == 0)
        #expect(clientsFinished)
        // Not "stopped; some requests did not finish in time": the drain ended before its
        // grace period did.
        #expect(service.child.errors.lines.last == "stopped")
        #expect(slowResponse.status == 200)
        #expect(slowResponse.headers["Connection"]?.lowercased() == "close")
        #expect(try jsonObject(slowResponse.body)["outcome"] as? String == "recorded")
        #expect(throws: LoopbackError.connectFailed(ECONNREFUSED)) { _ = try service.connect() }
        #expect(try service.healthStatus() == 1)
        // The ledger was closed: its last connection checkpointed and removed the write-ahead log.
        #expect(!FileManager.default.fileExists(atPath: service.databasePath + "-wal"))

        let seen = answers.withLock { $0 }
        #expect(seen.count >= 24)
        #expect(seen.allSatisfy { ($0.status ?? 0) < 500 }, "\(seen.compactMap(\.status).filter { $0 >= 500 })")
        #expect(seen.allSatisfy { $0.status == nil || $0.status == 200 })
        // Every request that was answered is in the ledger; so is the one that was in flight.
        let ledger = try service.openLedger()
        let transactions = Set(try ledger.texts("SELECT transaction_id FROM transactions"))
        let notifications = Set(try ledger.texts("SELECT notification_uuid FROM notifications"))
        for answer in seen where answer.status == 200 {
            switch answer.item.kind {
            case .transaction: #expect(transactions.contains(answer.item.key), "\(answer.item.key)")
            case .notification: #expect(notifications.contains(answer.item.key), "\(answer.item.key)")
            }
        }
        #expect(notifications.contains(slowUUID))
        #expect(try ledger.integrityCheck() == "ok")
        // Each answered request and the one in flight has its access-log line (a request answered
        // while its connection was being closed may have one too).
        #expect(service.accessLog.count >= seen.filter { $0.status != nil }.count + 1)
    }
}
