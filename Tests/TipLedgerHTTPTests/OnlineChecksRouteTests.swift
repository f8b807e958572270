// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerHTTP
import TipLedgerTestSupport

/// The routes with online checks: a revoked certificate is rejected as any token is; a strict
/// check without an answer is 503 with Retry-After, so the App Store sends it again; /metrics
/// counts the checks (docs/http.md).
@Suite struct OnlineChecksRouteTests {
    func harness(_ status: RevocationStatus) throws -> ServiceHarness {
        let checker = TestRevocationChecker([(TestChains.standard.leaf, status)])
        return try ServiceHarness(
            verifier: TestChains.verifier(onlineChecks: OnlineChecks(mode: .strict, checker: checker)))
    }

    @Test func aRevokedLeafIsAnswered422AndANotification400() throws {
        let harness = try harness(.revoked("since today"))
        let transaction = harness.postTransaction(try TestChains.transaction())
        #expect(transaction.status == 422)
        #expect(try jsonObject(transaction)["error"] as? String == "certificate_revoked")
        #expect(try jsonObject(transaction)["appleStatus"] as? String == "VERIFICATION_FAILURE")
        let notification = harness.post(
            "/v1/notifications", WebhookBody.wrapping(try TestJWS.sign(TestPayloads.notification())))
        #expect(notification.status == 400)
        #expect(try jsonObject(notification)["error"] as? String == "certificate_revoked")
    }

    @Test(arguments: ["/v1/transactions", "/v1/notifications"])
    func noAnswerWhenStrictIs503WithRetryAfter(_ path: String) throws {
        let harness = try harness(.unavailable("the responder cannot be reached"))
        let token =
            path == "/v1/transactions"
            ? try TestChains.transaction() : WebhookBody.wrapping(try TestJWS.sign(TestPayloads.notification()))

        let response = harness.post(path, token)

        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "60")
        #expect(try jsonObject(response)["error"] as? String == "revocation_unavailable")
        #expect(try jsonObject(response)["appleStatus"] as? String == "RETRYABLE_VERIFICATION_FAILURE")
    }

    @Test func metricsCountTheChecks() throws {
        let harness = try harness(.unavailable("the responder cannot be reached"))
        _ = harness.postTransaction(try TestChains.transaction())

        let metrics = harness.request("GET", "/metrics").bodyText

        #expect(metrics.contains("\ntipledger_ocsp_requests_total 2\n"), "\(metrics)")
        #expect(metrics.contains("\ntipledger_ocsp_unavailable_total 1\n"))
        #expect(metrics.contains("\ntipledger_ocsp_cache_hits_total 0\n"))
        #expect(metrics.contains("\ntipledger_ocsp_shared_answers_total 0\n"))
    }

    @Test func metricsSayNothingOfOCSPWithoutOnlineChecks() throws {
        let metrics = try ServiceHarness().request("GET", "/metrics").bodyText
        #expect(!metrics.contains("tipledger_ocsp_"))
    }
}
