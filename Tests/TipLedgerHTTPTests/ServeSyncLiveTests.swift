// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

/// `serve` with App Store Server API credentials: it sweeps the notification history at start
/// and then on its interval, answers a consumption request by itself without holding up the
/// notification's 200, and counts it all in `/metrics`.
@Suite struct ServeSyncLiveTests {
    @Test func serveSweepsOnItsIntervalAndAnswersConsumptionRequestsByItself() throws {
        let directory = try TemporaryDirectory()
        let chain = try LiveTestChain(directory: directory.path)
        let account = try APITestAccount.apple()
        let keyFile = directory.file("key.p8")
        try FileManager.default.copyItem(atPath: account.keyFile, toPath: keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let fake = try FakeAppStoreServer(account: account, clock: .system)
        defer { fake.stop() }
        let store = ScriptedAppStore()
        let now = LiveTestChain.now
        var tips: [String] = []
        var history: [ScriptedAppStore.Notification] = []
        for number in 1...25 {
            let purchased = now - Int64(50 - number) * 3_600_000
            let tip = try chain.transaction(id: String(8_000_000_000_000_000 + number), purchaseDate: purchased)
            tips.append(tip)
            history.append(
                .init(
                    signedPayload: try chain.notification(
                        "ONE_TIME_CHARGE", uuid: TestChains.uuid(800 + number), signedDate: purchased, about: tip),
                    sentAt: purchased))
        }
        store.add(history)
        // Apple's answer to the consumption information waits until the test has its 200.
        let gate = RequestGate()
        fake.respond { request in
            if request.endpoint == .sendConsumptionInformation { gate.pass() }
            return store.respond(request)
        }

        let service = try LiveService(
            environment: [
                "TIPLEDGER_BUNDLE_ID": account.bundleId, "TIPLEDGER_ENVIRONMENT": "Production",
                "TIPLEDGER_APP_APPLE_ID": String(TestChains.appAppleId), "TIPLEDGER_CUSTOMERS_CONSENTED": "1",
            ],
            arguments: [
                "--api-key", keyFile, "--api-key-id", account.keyId, "--api-issuer", account.issuerId, "--api-url",
                fake.baseURL, "--api-ca", fake.certificateAuthorityFile, "--sync-interval", "1s",
            ], directory: directory, trust: ["--keys", chain.keysDirectory])
        let errors = service.child.errors
        #expect(
            errors.wait(upTo: .seconds(60)) {
                $0.contains("sync: Production: 25 notifications in 2 pages: 25 applied")
            },
            "\(service.diagnostics)")
        #expect(
            errors.wait(upTo: .seconds(60)) { $0.contains("sync: Production: 0 notifications in 1 page: none") },
            "a second sweep comes after the interval: \(service.diagnostics)")

        let request = try chain.notification(
            "CONSUMPTION_REQUEST", uuid: TestChains.uuid(899), signedDate: now - 60_000, about: tips[0])
        let connection = try service.connect()
        let posted = try connection.exchange(
            "POST", "/v1/notifications", body: Array(WebhookBody.wrapping(request).utf8))
        #expect(posted.status == 200)
        #expect(!gate.isOpen && !errors.text.contains("consumption: answered"), "the 200 came before Apple's answer")
        gate.open()
        #expect(
            errors.wait(upTo: .seconds(60)) {
                $0.contains("consumption: answered Production transaction 8000000000000001: Apple took it (202)")
            }, "\(service.diagnostics)")
        let answer = try #require(fake.requests.first { $0.endpoint == .sendConsumptionInformation })
        #expect(answer.parameter == "8000000000000001")
        #expect(answer.body?["deliveryStatus"] == .string("UNDELIVERED_OTHER"), "the tip came from Apple, not the app")

        let metrics = try PrometheusText(
            {
                let response = try connection.exchange("GET", "/metrics")
                return HTTPResponse(status: response.status, body: response.body)
            }())
        let calls = "tipledger_app_store_api_requests_total"
        #expect(metrics[calls, ["endpoint": "get_notification_history", "status": "200"]] ?? 0 >= 3)
        #expect(metrics[calls, ["endpoint": "send_consumption_information", "status": "202"]] == 1)
        let swept = try #require(
            metrics["tipledger_sync_last_success_timestamp_seconds", ["environment": "Production"]])
        #expect(swept * 1000 >= Double(now))
        #expect(service.stop() == 0, "\(service.diagnostics)")
        #expect(fake.rejections.isEmpty, "\(fake.rejections)")
    }
}
