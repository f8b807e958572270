// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerHTTP
@testable import TipLedgerStore

/// The write routes answer once the group their payload joined committed; the ledger's writer
/// is held (its connection locked) while the requests come, so they wait for it together.
@Suite struct GroupCommitRouteTests {
    func request(_ path: String, _ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: path, body: Array(body.utf8), remoteAddress: "127.0.0.1")
    }

    /// Every request's answer, given while the ledger's writer cannot commit, then waited for
    /// once it can.
    func answersWhileTheWriterIsHeld(_ harness: ServiceHarness, _ requests: [HTTPRequest]) throws -> [HTTPResponse] {
        let answers = try harness.ledger.withDatabase { _ in requests.map(harness.service.answer) }
        return answers.map { answer in
            switch answer {
            case .now(let response): response
            case .later(let deferred): deferred.wait()
            }
        }
    }

    @Test func aRejectionInAGroupFailsOnlyThatRequestAndEveryOtherIsRecorded() throws {
        // Verified on the calling thread, every request is queued before the writer is let go.
        let harness = try ServiceHarness(verificationThreads: 0)
        let rejected = 2
        let requests =
            try (0..<6).map { index in
                try request(
                    "/v1/transactions",
                    TestChains.transaction(id: String(2_000_000_000_400 + index), price: index == rejected ? -1 : 990))
            }
            + [
                request(
                    "/v1/notifications",
                    WebhookBody.wrapping(try TestChains.notification(type: "TEST", uuid: TestChains.uuid(400))))
            ]
        let responses = try answersWhileTheWriterIsHeld(harness, requests)

        #expect(responses.map(\.status) == [200, 200, 422, 200, 200, 200, 200])
        let rejection = try jsonObject(responses[rejected])
        #expect(rejection["error"] as? String == "invalid_payload")
        for index in responses.indices where index != rejected {
            #expect(try jsonObject(responses[index])["outcome"] as? String == "recorded", "request \(index)")
        }
        // Answered 200 means committed: another connection sees every one.
        let reader = try Ledger.open(path: harness.path, reading: true)
        #expect(try reader.integrityCheck() == "ok")
        let recorded = try harness.ledger.texts("SELECT transaction_id FROM transactions ORDER BY transaction_id")
        #expect(recorded == [0, 1, 3, 4, 5].map { String(2_000_000_000_400 + $0) })
        #expect(try harness.ledger.texts("SELECT notification_uuid FROM notifications").count == 1)
        // The writer took at most one group before the others waited together.
        let metrics = harness.request("GET", "/metrics").bodyText
        #expect(
            metrics.contains("tipledger_write_groups_total 1\n")
                || metrics.contains("tipledger_write_groups_total 2\n"),
            "\(metrics)")
    }

    @Test func pastTheWriteQueueLimitAWriteIsAnswered503WithRetryAfterAndCounted() throws {
        let limit = 2
        // Verified on the calling thread, the requests reach the writer's queue in order.
        let harness = try ServiceHarness(writeQueueLimit: limit, verificationThreads: 0)
        let requests = try (0..<(2 * limit + 1)).map { index in
            try request("/v1/transactions", TestChains.transaction(id: String(2_000_000_000_500 + index)))
        }
        // The writer takes the first request alone and waits for the ledger this test holds;
        // `limit` more wait for it, and the rest are refused.
        let answers = try harness.ledger.withDatabase { _ in
            let first = harness.service.answer(requests[0])
            while harness.service.committer.waiting > 0 { usleep(1000) }
            return [first] + requests.dropFirst().map(harness.service.answer)
        }
        let responses = answers.map { answer in
            switch answer {
            case .now(let response): response
            case .later(let deferred): deferred.wait()
            }
        }

        #expect(
            responses.map(\.status) == Array(repeating: 200, count: limit + 1) + Array(repeating: 503, count: limit))
        let refused = responses.filter { $0.status == 503 }
        for response in refused {
            #expect(response.headers["Retry-After"] == "1")
            #expect(try jsonObject(response)["error"] as? String == "unavailable")
        }
        let metrics = harness.request("GET", "/metrics").bodyText
        #expect(metrics.contains("tipledger_write_queue_refusals_total \(refused.count)\n"), "\(metrics)")
        #expect(
            metrics.contains(#"tipledger_http_requests_total{route="transactions",status="503"} \#(refused.count)"#))
        // What was answered 200 is recorded, and nothing else.
        #expect(
            try harness.ledger.texts("SELECT transaction_id FROM transactions").count == responses.count - refused.count
        )
    }
}
