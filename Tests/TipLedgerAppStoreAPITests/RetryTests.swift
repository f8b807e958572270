// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import Testing
import TipLedgerAPITestSupport
import TipLedgerAppStoreAPI
import TipLedgerCore

/// How the client behaves toward Apple's failures: which it retries and after what wait, how it
/// honours a 429's `Retry-After`, and how it reports the ones it does not retry. The waits are
/// the manual clock's sleeps; nothing really waits.
@Suite struct RetryTests {
    /// A retryable answer, named for the test's list.
    struct Retryable: CustomTestStringConvertible, Sendable {
        let name: String
        let reply: FakeReply
        var testDescription: String { name }
    }

    static let retryable: [Retryable] = [
        Retryable(name: "503 without a body", reply: .empty(status: 503)),
        Retryable(name: "GeneralInternalError", reply: .fixture("apiException.json", status: 500)),
        Retryable(
            name: "GeneralInternalRetryableError",
            reply: .appleError(status: 500, code: 5_000_001, message: "An unknown error occurred. Please try again.")),
        Retryable(
            name: "AccountNotFoundRetryableError",
            reply: .appleError(status: 404, code: 4_040_002, message: "Account not found. Please try again.")),
        Retryable(
            name: "AppNotFoundRetryableError",
            reply: .appleError(status: 404, code: 4_040_004, message: "App not found. Please try again.")),
        Retryable(
            name: "OriginalTransactionIdNotFoundRetryableError",
            reply: .appleError(status: 404, code: 4_040_006, message: "Original transaction id not found.")),
    ]

    @Test(arguments: retryable)
    func retryableAnswersAreTriedAgainAfterABackoff(_ retryable: Retryable) throws {
        let harness = try APIHarness()
        harness.fake.reply(retryable.reply, .fixture("transactionInfoResponse.json"))
        let response = try harness.client.transactionInfo(transactionId: "1234")

        #expect(response.signedTransactionInfo == "signed_transaction_info_value")
        #expect(harness.fake.arrivals == 2)
        let sleeps = harness.clock.sleeps
        #expect(sleeps.count == 1)
        #expect(sleeps.allSatisfy { (.milliseconds(250)...(.milliseconds(500))).contains($0) }, "\(sleeps)")
    }

    @Test func backoffDoublesUpToItsMaximumUntilTheAttemptsRunOut() throws {
        let harness = try APIHarness {
            $0.maximumAttempts = 5
            $0.initialBackoff = .milliseconds(500)
            $0.maximumBackoff = .seconds(1)
        }
        harness.fake.respond { _ in .empty(status: 503) }
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .appleError && error.status == 503)
        #expect(error.message == "Get Transaction Info: Apple answered 503 (after 5 attempts)")
        #expect(harness.fake.arrivals == 5)
        let ceilings: [Duration] = [.milliseconds(500), .seconds(1), .seconds(1), .seconds(1)]
        let sleeps = harness.clock.sleeps
        #expect(sleeps.count == ceilings.count)
        for (sleep, ceiling) in zip(sleeps, ceilings) {
            #expect(sleep >= ceiling / 2 && sleep <= ceiling, "\(sleeps)")
        }
    }

    /// An answer not to retry, and what the error must say.
    struct Final: CustomTestStringConvertible, Sendable {
        let name: String
        let reply: FakeReply
        let status: Int
        let errorCode: Int64?
        let message: String
        var testDescription: String { name }
    }

    static let final: [Final] = [
        Final(
            name: "TransactionIdNotFoundError", reply: .fixture("transactionIdNotFoundError.json", status: 404),
            status: 404, errorCode: 4_040_010,
            message: "Get Transaction Info: Apple answered 404 TransactionIdNotFoundError (4040010): "
                + "Transaction id not found."),
        Final(
            name: "an error code tipledger does not know", reply: .fixture("apiUnknownError.json", status: 400),
            status: 400, errorCode: 9_990_000,
            message: "Get Transaction Info: Apple answered 400 error 9990000: Testing error."),
        Final(
            name: "a 400 without Apple's body", reply: .json(#"{"errorCode":"4000006"}"#, status: 400), status: 400,
            errorCode: nil, message: "Get Transaction Info: Apple answered 400"),
        Final(
            name: "an error message with control characters",
            reply: .appleError(status: 404, code: 4_040_005, message: "not\u{1B}[31m found"), status: 404,
            errorCode: 4_040_005,
            message: "Get Transaction Info: Apple answered 404 OriginalTransactionIdNotFoundError (4040005): "
                + "not\\u{1B}[31m found"),
    ]

    @Test(arguments: final)
    func otherAnswersFailAtOnceAndAreShownByName(_ final: Final) throws {
        let harness = try APIHarness()
        harness.fake.reply(final.reply)
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .appleError && !error.code.isConfiguration)
        #expect(error.status == final.status)
        #expect(error.apple?.errorCode == final.errorCode)
        #expect(error.message == final.message)
        #expect(harness.fake.arrivals == 1)
        #expect(harness.clock.sleeps.isEmpty)
    }

    @Test func unauthorizedIsAConfigurationErrorAndNotRetried() throws {
        let harness = try APIHarness()
        harness.fake.reply(.empty(status: 401))
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .unauthorized && error.code.isConfiguration)
        #expect(error.message == "Get Transaction Info: Apple answered 401")
        #expect(error.hint != nil)
        #expect(harness.fake.arrivals == 1)
    }

    @Test func rateLimitWaitsUntilTheMillisecondAppleNames() throws {
        let harness = try APIHarness()
        let retryAt = APIHarness.start.wholeMilliseconds + 1_234
        harness.fake.reply(.rateLimited(retryAfter: "\(retryAt)"), .fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        #expect(harness.clock.sleeps == [.milliseconds(1_234)])
        let second = try #require(harness.fake.requests.last)
        #expect(second.arrivedAt == AppleDate(wholeMilliseconds: retryAt))
        #expect(second.claims["iat"] == .integer(retryAt / 1000), "the retry carries a token of its own time")
        #expect(harness.fake.arrivals == 2)
    }

    @Test func aSmallRetryAfterCountsSecondsFromNow() throws {
        let harness = try APIHarness()
        harness.fake.reply(.rateLimited(retryAfter: "3"), .fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        #expect(harness.clock.sleeps == [.seconds(3)])
    }

    @Test(arguments: [nil, "Wed, 21 Oct 2015 07:28:00 GMT"])
    func aRateLimitWithoutAUsableRetryAfterBacksOff(_ retryAfter: String?) throws {
        let harness = try APIHarness()
        harness.fake.reply(.rateLimited(retryAfter: retryAfter), .fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        let sleeps = harness.clock.sleeps
        #expect(sleeps.count == 1)
        #expect(sleeps.allSatisfy { (.milliseconds(250)...(.milliseconds(500))).contains($0) }, "\(sleeps)")
    }

    /// A `Retry-After` already past by this clock (Apple's clock behind it) holds nothing back:
    /// the retry still backs off rather than following the 429 at once.
    @Test func aRetryAfterAlreadyPastBacksOff() throws {
        let harness = try APIHarness()
        let retryAt = APIHarness.start.wholeMilliseconds - 5_000
        harness.fake.reply(.rateLimited(retryAfter: "\(retryAt)"), .fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        let sleeps = harness.clock.sleeps
        #expect(sleeps.count == 1)
        #expect(sleeps.allSatisfy { (.milliseconds(250)...(.milliseconds(500))).contains($0) }, "\(sleeps)")
        #expect(harness.fake.arrivals == 2)
    }

    @Test func aRetryAfterPastTheBoundFailsWithItsTime() throws {
        let harness = try APIHarness { $0.maximumRetryAfter = .seconds(60) }
        let retryAt = APIHarness.start.wholeMilliseconds + 60_001
        harness.fake.reply(.rateLimited(retryAfter: "\(retryAt)"))
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .rateLimited && error.status == 429)
        #expect(error.retryAt == AppleDate(wholeMilliseconds: retryAt))
        #expect(error.apple?.name == "RateLimitExceededError")
        #expect(harness.fake.arrivals == 1)
        #expect(harness.clock.sleeps.isEmpty)
    }

    @Test func aRetryAfterAtTheBoundIsWaitedFor() throws {
        let harness = try APIHarness { $0.maximumRetryAfter = .seconds(60) }
        let retryAt = APIHarness.start.wholeMilliseconds + 60_000
        harness.fake.reply(.rateLimited(retryAfter: "\(retryAt)"), .fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        #expect(harness.clock.sleeps == [.seconds(60)])
    }

    @Test func aRetryAfterHoldsItsEndpointForLaterCalls() throws {
        let harness = try APIHarness { $0.maximumAttempts = 1 }
        let retryAt = APIHarness.start.wholeMilliseconds + 5_000
        harness.fake.reply(
            .rateLimited(retryAfter: "\(retryAt)"), .fixture("lookupOrderIdResponse.json"),
            .fixture("transactionInfoResponse.json"))
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })
        #expect(error.code == .rateLimited && error.retryAt == AppleDate(wholeMilliseconds: retryAt))

        _ = try harness.client.lookUpOrderId("W002182")
        #expect(harness.clock.sleeps.isEmpty, "another endpoint is not held")
        _ = try harness.client.transactionInfo(transactionId: "1234")
        #expect(harness.clock.sleeps == [.seconds(5)])
        #expect(harness.fake.requests.last?.arrivedAt == AppleDate(wholeMilliseconds: retryAt))
    }
}

/// The client's observer hears of every exchange, retries included.
@Suite struct ObserverTests {
    @Test func everyAttemptIsToldWithItsStatusOrFailure() throws {
        let heard = Mutex<[APIExchange]>([])
        let harness = try APIHarness()
        // Long enough for every answer but the stalled one to arrive, TLS handshake included, on a
        // machine busy with other tests; the stall ends a second after it, for the answer after
        // it may be handed to the stalled worker.
        let client = try harness.client { $0.requestTimeout = .seconds(3) }
        let observed = try AppStoreServerAPIClient(
            credentials: try harness.account.credentials(), configuration: client.configuration,
            clock: apiClock(harness.clock), observer: { exchange in heard.withLock { $0.append(exchange) } })
        let retryAt = harness.clock.now.wholeMilliseconds + 1000
        harness.fake.reply(
            .empty(status: 503), .rateLimited(retryAfter: String(retryAt)), .stall(upTo: .seconds(4)),
            .fixture("transactionInfoResponse.json"))
        _ = try observed.transactionInfo(transactionId: "1234")
        harness.fake.releaseStalled()

        let exchanges = heard.withLock { $0 }
        #expect(exchanges.map(\.endpoint) == Array(repeating: "get_transaction_info", count: 4))
        #expect(exchanges.map(\.outcome) == ["503", "429", "timed_out", "200"])
        #expect(exchanges.map(\.retryAt) == [nil, AppleDate(wholeMilliseconds: retryAt), nil, nil])
        #expect(exchanges.map(\.failure) == [nil, nil, .timedOut, nil])
        #expect(exchanges.allSatisfy { $0.endpointName == "Get Transaction Info" })
    }
}
