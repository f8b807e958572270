// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// Answers the transport gives without the service (400 for ambiguous framing, 413) still reach
/// `/metrics`; the handler's own answers are not counted twice.
@Suite struct TransportMetricsTests {
    private func entry(_ path: String, status: Int, handled: Bool) -> AccessLogEntry {
        AccessLogEntry(
            method: "POST", path: path, status: status, handled: handled, responseBytes: 0, requestBytes: 70_000,
            durationMicroseconds: 1200, remoteAddress: "127.0.0.1", completed: true)
    }

    @Test func answersTheTransportGaveAreCountedUnderTheirRoute() throws {
        let harness = try ServiceHarness()
        harness.service.countTransportAnswer(entry("/v1/notifications", status: 413, handled: false))
        harness.service.countTransportAnswer(entry("/v1/transactions", status: 400, handled: false))
        harness.service.countTransportAnswer(entry("/v1/notifications", status: 200, handled: true))
        harness.service.countTransportAnswer(entry("/v1/transactions", status: 400, handled: true))
        let metrics = harness.service.metrics.render()
        #expect(metrics.contains(#"tipledger_http_requests_total{route="notifications",status="413"} 1"#))
        #expect(metrics.contains(#"tipledger_http_requests_total{route="transactions",status="400"} 1"#))
        #expect(!metrics.contains(#"status="200""#))
    }

    @Test func anyPathMapsToAFixedRouteLabel() throws {
        let harness = try ServiceHarness()
        harness.service.countTransportAnswer(entry("/v1/accounts/x/transactions", status: 413, handled: false))
        harness.service.countTransportAnswer(entry("/no/such/place", status: 413, handled: false))
        let metrics = harness.service.metrics.render()
        #expect(metrics.contains(#"route="accounts",status="413"} 1"#))
        #expect(metrics.contains(#"route="unknown",status="413"} 1"#))
        #expect(!metrics.contains("no/such"))
    }
}
