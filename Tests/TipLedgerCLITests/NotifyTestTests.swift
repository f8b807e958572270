// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// `tipledger notify-test`: Apple is asked to send a TEST notification, then asked how it went
/// until it has tried; each attempt is shown, with what to check when it failed.
@Suite struct NotifyTestTests {
    @Test func applesAttemptIsShownWithWhetherTheNotificationVerifies() async throws {
        try await APIScenario.with { scenario in
            scenario.store.setTestNotification(payload: try scenario.notification("TEST", number: 900, hoursAgo: 0))
            let result = try await scenario.run(["notify-test"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(
                result.outLines.first
                    == "Production: Apple is sending a test notification (token test-notification-1); waiting up to 60 s "
                    + "for its first attempt", "\(result.out)")
            #expect(result.outLines.dropFirst().first?.hasSuffix(": SUCCESS") == true, "\(result.out)")
            #expect(
                result.outLines.last == "Production: the notification verifies here: TEST \(TestChains.uuid(900))",
                "\(result.out)")
            let polls = scenario.requests(.getTestNotificationStatus)
            #expect(polls.count == 2, "Apple had not tried at the first poll")
            #expect(polls.allSatisfy { $0.parameter == "test-notification-1" })
        }
    }

    @Test func aFailedAttemptSaysWhatToCheck() async throws {
        try await APIScenario.with { scenario in
            let forger = try LiveTestChain(directory: scenario.directory.file("forger"))
            let untrusted = try forger.notification(
                "TEST", uuid: TestChains.uuid(901), signedDate: scenario.now, environment: .production)
            scenario.store.setTestNotification(payload: untrusted, result: "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
            let result = try await scenario.run(["notify-test", "--wait", "10"])
            #expect(result.exited(1), "\(result.summary)")
            #expect(result.out.contains(": UNSUCCESSFUL_HTTP_RESPONSE_CODE\n"), "\(result.out)")
            #expect(result.err.contains("hint: the server answered with an error"), "\(result.err)")
            #expect(result.out.contains("the notification does not verify here: untrusted_chain"), "\(result.out)")
        }
    }

    @Test func noAttemptWithinTheWaitSaysHowToAskAgain() async throws {
        try await APIScenario.with { scenario in
            let result = try await scenario.run(["notify-test", "--wait", "0"])
            #expect(result.exited(1), "\(result.summary)")
            #expect(
                result.outLines.last
                    == "Production: Apple has not tried to send it after 0 s; ask again with: tipledger notify-test "
                    + "--token test-notification-1", "\(result.out)")
            let again = try await scenario.run(["notify-test", "--token", "test-notification-1"])
            #expect(again.exited(0), "\(again.summary)")
            #expect(scenario.requests(.requestTestNotification).count == 1, "--token requests no new notification")
        }
    }
}
