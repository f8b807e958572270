// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore

@testable import TipLedgerAppStoreAPI

/// Keeping under Apple's published rate per endpoint, a tenth of it in the sandbox.
@Suite struct RateLimiterTests {
    static let now = AppleDate(wholeMilliseconds: 1_767_225_600_000)

    @Test func aSecondsWorthOfRequestsGoesAtOnceAndTheNextWaitsForItsToken() {
        let limiter = RateLimiter(environment: .production)
        let waits = (0..<50).map { _ in limiter.reserve(.getTransactionInfo, at: Self.now) }
        #expect(waits.allSatisfy { $0 == .zero })
        #expect(limiter.reserve(.getTransactionInfo, at: Self.now) == .milliseconds(20))
        #expect(limiter.reserve(.getTransactionInfo, at: Self.now) == .milliseconds(40), "callers queue in order")
        #expect(limiter.reserve(.lookUpOrderId, at: Self.now) == .zero, "each endpoint has its own bucket")
    }

    @Test func tokensComeBackAtTheEndpointsRate() {
        let limiter = RateLimiter(environment: .production)
        for _ in 0..<10 { _ = limiter.reserve(.getRefundHistory, at: Self.now) }
        #expect(limiter.reserve(.getRefundHistory, at: Self.now) == .milliseconds(100))
        let later = AppleDate(wholeMilliseconds: Self.now.wholeMilliseconds + 1_000)
        #expect(limiter.reserve(.getRefundHistory, at: later) == .zero)
    }

    @Test(arguments: [(AppStoreEnvironment.production, Duration.seconds(1)), (.sandbox, .seconds(10))])
    func testNotificationsAreSpacedByTheEnvironmentsRate(_ environment: AppStoreEnvironment, _ gap: Duration)
        throws
    {
        let harness = try APIHarness(environment: environment)
        harness.fake.reply(
            .fixture("requestTestNotificationResponse.json"), .fixture("requestTestNotificationResponse.json"))
        _ = try harness.client.requestTestNotification()
        _ = try harness.client.requestTestNotification()

        #expect(harness.clock.sleeps == [gap])
        let arrivals = harness.fake.requests.compactMap(\.arrivedAt)
        #expect(arrivals.count == 2 && arrivals[1].milliseconds - arrivals[0].milliseconds == gap.milliseconds)
    }

    @Test func aHeldEndpointWaitsUntilTheHoldEnds() {
        let limiter = RateLimiter(environment: .production)
        limiter.hold(.getNotificationHistory, until: AppleDate(wholeMilliseconds: Self.now.wholeMilliseconds + 5_000))
        #expect(limiter.reserve(.getNotificationHistory, at: Self.now) == .seconds(5))
        #expect(limiter.reserve(.getTransactionHistory, at: Self.now) == .zero)
    }
}
