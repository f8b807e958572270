// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerAPITestSupport
import TipLedgerAppStoreAPI
import TipLedgerCore
import TipLedgerHTTP

/// Each endpoint: the request the fake receives (method, path, query, body, all checked as
/// Apple checks them) and how the client decodes the bodies of Apple's library tests.
@Suite struct EndpointTests {
    @Test func transactionInfoAsksForTheTransaction() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("transactionInfoResponse.json"))
        let response = try harness.client.transactionInfo(transactionId: "1234")

        #expect(response.signedTransactionInfo == "signed_transaction_info_value")
        let request = try #require(harness.fake.requests.first)
        #expect(request.endpoint == .getTransactionInfo && request.parameter == "1234")
        #expect(request.query.isEmpty && request.body == nil)
        #expect(request.headers["Content-Type"] == nil)
        #expect(request.headers["User-Agent"] == "tipledger/\(APIHarness.version)")
        #expect(harness.fake.rejections.isEmpty)
    }

    @Test func transactionHistorySendsEveryFilterWithoutARevisionFirst() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("transactionHistoryResponse.json"))
        var request = TransactionHistoryRequest()
        request.startDate = AppleDate(wholeMilliseconds: 123_455)
        request.endDate = AppleDate(wholeMilliseconds: 123_456)
        request.productIds = ["com.example.1", "com.example.2"]
        request.productTypes = [.consumable, .autoRenewable]
        request.sort = .ascending
        request.subscriptionGroupIdentifiers = ["sub_group_id", "sub_group_id_2"]
        request.inAppOwnershipType = .familyShared
        request.revoked = false
        var pages = try harness.client.transactionHistory(transactionId: "1234", request)
        let page = try #require(try pages.next())

        #expect(page.revision == "revision_output" && page.hasMore)
        #expect(page.bundleId == "com.example" && page.appAppleId == 323_232)
        #expect(page.environment == .localTesting)
        #expect(page.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
        let sent = try #require(harness.fake.requests.first)
        #expect(sent.endpoint == .getTransactionHistory && sent.parameter == "1234")
        #expect(
            sent.query.items.map { "\($0.name)=\($0.value)" } == [
                "startDate=123455", "endDate=123456", "productId=com.example.1", "productId=com.example.2",
                "productType=CONSUMABLE", "productType=AUTO_RENEWABLE", "sort=ASCENDING",
                "subscriptionGroupIdentifier=sub_group_id", "subscriptionGroupIdentifier=sub_group_id_2",
                "inAppOwnershipType=FAMILY_SHARED", "revoked=false",
            ])
        #expect(harness.fake.rejections.isEmpty)
    }

    @Test func historyWithAnUnknownEnvironmentKeepsItsRawValue() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("transactionHistoryResponseWithMalformedEnvironment.json"))
        var pages = try harness.client.transactionHistory(transactionId: "1234")
        let page = try #require(try pages.next())

        #expect(page.environment == nil)
        #expect(page.rawEnvironment == "LocalTestingxxx")
    }

    @Test func historyWithAnAppAppleIdOfTheWrongTypeIsMalformed() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("transactionHistoryResponseWithMalformedAppAppleId.json"))
        var pages = try harness.client.transactionHistory(transactionId: "1234")
        let error = try #require(apiError { try pages.next() })

        #expect(error.code == .malformedResponse)
        #expect(error.message.contains("field appAppleId: expected an integer, got a string"), "\(error.message)")
        #expect(harness.fake.arrivals == 1, "a malformed answer is not retried")
    }

    @Test func notificationHistorySendsApplesBodyAndTheStoredToken() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("getNotificationHistoryResponse.json"))
        var request = NotificationHistoryRequest(
            startDate: AppleDate(wholeMilliseconds: 1_698_148_900_000),
            endDate: AppleDate(wholeMilliseconds: 1_698_148_950_000))
        request.notificationType = "SUBSCRIBED"
        request.notificationSubtype = "INITIAL_BUY"
        request.onlyFailures = true
        var pages = try harness.client.notificationHistory(
            request, resumingAfter: "a036bc0e-52b8-4bee-82fc-8c24cb6715d6")
        let page = try #require(try pages.next())

        #expect(page.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a" && page.hasMore)
        #expect(page.notificationHistory.map(\.signedPayload) == ["signed_payload_one", "signed_payload_two"])
        #expect(
            page.notificationHistory.map { $0.sendAttempts.map(\.rawSendAttemptResult) } == [
                ["NO_RESPONSE", "SUCCESS"], ["CIRCULAR_REDIRECT"],
            ])
        #expect(
            page.notificationHistory[0].sendAttempts.map(\.attemptDate) == [
                AppleDate(wholeMilliseconds: 1_698_148_900_000), AppleDate(wholeMilliseconds: 1_698_148_950_000),
            ])
        let sent = try #require(harness.fake.requests.first)
        #expect(
            sent.query.items == [HTTPQuery.Item(name: "paginationToken", value: "a036bc0e-52b8-4bee-82fc-8c24cb6715d6")]
        )
        #expect(
            sent.body == [
                "startDate": .integer(1_698_148_900_000), "endDate": .integer(1_698_148_950_000),
                "notificationType": .string("SUBSCRIBED"), "notificationSubtype": .string("INITIAL_BUY"),
                "onlyFailures": .bool(true),
            ])
        #expect(sent.headers["Content-Type"] == "application/json")
        #expect(harness.fake.rejections.isEmpty)
    }

    @Test func notificationHistoryLeavesOutWhatIsNotAsked() throws {
        let harness = try APIHarness()
        harness.fake.reply(.json(#"{"hasMore":false,"notificationHistory":[]}"#))
        var request = NotificationHistoryRequest(
            startDate: AppleDate(wholeMilliseconds: 1_000), endDate: AppleDate(wholeMilliseconds: 2_000))
        request.transactionId = "999733843"
        var pages = try harness.client.notificationHistory(request)
        _ = try pages.next()

        let sent = try #require(harness.fake.requests.first)
        #expect(sent.query.isEmpty)
        #expect(
            sent.body == [
                "startDate": .integer(1_000), "endDate": .integer(2_000), "transactionId": .string("999733843"),
            ])
    }

    @Test func lookUpOrderIdReportsAnInvalidOrder() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("lookupOrderIdResponse.json"))
        let response = try harness.client.lookUpOrderId("W002182")

        #expect(response.rawStatus == 1 && !response.isValid)
        #expect(response.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
        let sent = try #require(harness.fake.requests.first)
        #expect(sent.endpoint == .lookUpOrderId && sent.parameter == "W002182")
    }

    @Test func refundHistoryResumesFromAStoredRevision() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("getRefundHistoryResponse.json"))
        var pages = try harness.client.refundHistory(transactionId: "555555", resumingAfter: "revision_input")
        let page = try #require(try pages.next())

        #expect(page.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
        #expect(page.revision == "revision_output" && page.hasMore)
        #expect(pages.cursor == "revision_output")
        let sent = try #require(harness.fake.requests.first)
        #expect(sent.endpoint == .getRefundHistory && sent.parameter == "555555")
        #expect(sent.query.items == [HTTPQuery.Item(name: "revision", value: "revision_input")])
    }

    @Test func consumptionInformationSendsTheVersionTwoBody() throws {
        let harness = try APIHarness()
        harness.fake.reply(.empty(status: 202))
        try harness.client.sendConsumptionInformation(
            transactionId: "49571273",
            ConsumptionRequest(
                deliveryStatus: .delivered, sampleContentProvided: false, consumptionPercentage: 50_000,
                refundPreference: .grantFull))

        let sent = try #require(harness.fake.requests.first)
        #expect(sent.endpoint == .sendConsumptionInformation && sent.parameter == "49571273")
        #expect(
            sent.body == [
                "customerConsented": .bool(true), "sampleContentProvided": .bool(false),
                "deliveryStatus": .string("DELIVERED"),
                "consumptionPercentage": .integer(50_000), "refundPreference": .string("GRANT_FULL"),
            ])
        #expect(harness.fake.rejections.isEmpty)
    }

    @Test func testNotificationIsRequestedWithoutABodyAndItsStatusRead() throws {
        let harness = try APIHarness()
        harness.fake.reply(
            .fixture("requestTestNotificationResponse.json"), .fixture("getTestNotificationStatusResponse.json"))
        let requested = try harness.client.requestTestNotification()
        let status = try harness.client.testNotificationStatus(token: "8cd2974c-f905-492a-bf9a-b2f47c791d19")

        #expect(requested.testNotificationToken == "ce3af791-365e-4c60-841b-1674b43c1609")
        #expect(status.signedPayload == "signed_payload")
        #expect(status.sendAttempts.map(\.rawSendAttemptResult) == ["NO_RESPONSE", "SUCCESS"])
        let sent = harness.fake.requests
        #expect(sent.map(\.endpoint) == [.requestTestNotification, .getTestNotificationStatus])
        #expect(sent[0].body == nil && sent[0].headers["Content-Type"] == nil)
        #expect(sent[0].headers["Content-Length"] == "0")
        #expect(sent[1].parameter == "8cd2974c-f905-492a-bf9a-b2f47c791d19")
        #expect(harness.fake.rejections.isEmpty)
    }

    /// A call Apple would refuse, made anyway.
    struct RefusedCall: CustomTestStringConvertible, Sendable {
        let name: String
        let message: String
        let call: @Sendable (AppStoreServerAPIClient) throws(AppStoreAPIError) -> Void

        var testDescription: String { name }
    }

    static let window = NotificationHistoryRequest(
        startDate: AppleDate(wholeMilliseconds: 1_000), endDate: AppleDate(wholeMilliseconds: 2_000))

    static let refusedCalls: [RefusedCall] = [
        RefusedCall(name: "two history filters", message: "not both") { client throws(AppStoreAPIError) in
            var request = window
            request.transactionId = "1"
            request.notificationType = "REFUND"
            _ = try client.notificationHistory(request)
        },
        RefusedCall(name: "a subtype alone", message: "needs its notification type") {
            client throws(AppStoreAPIError) in
            var request = window
            request.notificationSubtype = "INITIAL_BUY"
            _ = try client.notificationHistory(request)
        },
        RefusedCall(name: "a window ending before it starts", message: "is after its end") {
            client throws(AppStoreAPIError) in
            _ = try client.notificationHistory(
                NotificationHistoryRequest(
                    startDate: AppleDate(wholeMilliseconds: 2_000), endDate: AppleDate(wholeMilliseconds: 1_000)))
        },
        RefusedCall(name: "a percentage over 100 %", message: "is not in 0…100000") { client throws(AppStoreAPIError) in
            try client.sendConsumptionInformation(
                transactionId: "1",
                ConsumptionRequest(
                    deliveryStatus: .delivered, sampleContentProvided: false, consumptionPercentage: 100_001))
        },
        RefusedCall(name: "a percentage for an undelivered tip", message: "has a consumption percentage of 0") {
            client throws(AppStoreAPIError) in
            try client.sendConsumptionInformation(
                transactionId: "1",
                ConsumptionRequest(
                    deliveryStatus: .undeliveredServerOutage, sampleContentProvided: false, consumptionPercentage: 10))
        },
        RefusedCall(name: "a prorated refund without a percentage", message: "a prorated refund needs") {
            client throws(AppStoreAPIError) in
            try client.sendConsumptionInformation(
                transactionId: "1",
                ConsumptionRequest(
                    deliveryStatus: .delivered, sampleContentProvided: false, refundPreference: .grantProrated))
        },
        RefusedCall(name: "an empty transaction id", message: "is not one Apple issues") {
            client throws(AppStoreAPIError) in
            _ = try client.transactionInfo(transactionId: "")
        },
        RefusedCall(name: "a transaction id with a slash", message: "is not one Apple issues") {
            client throws(AppStoreAPIError) in
            _ = try client.transactionInfo(transactionId: "12/../34")
        },
        RefusedCall(name: "an order id with a space", message: "is not one Apple issues") {
            client throws(AppStoreAPIError) in
            _ = try client.lookUpOrderId("W00 2182")
        },
    ]

    @Test(arguments: refusedCalls)
    func callsAppleWouldRefuseAreNotSent(_ refused: RefusedCall) throws {
        let harness = try APIHarness()
        let error = try #require(apiError { try refused.call(harness.client) })
        #expect(error.code == .invalidRequest && !error.code.isConfiguration)
        #expect(error.message.contains(refused.message), "\(error.message)")
        #expect(harness.fake.arrivals == 0)
    }
}
