// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerAPITestSupport
import TipLedgerAppStoreAPI
import TipLedgerCore

/// Walking the paged endpoints: one request per page, each asking with the cursor the page
/// before gave, and no endless walk when Apple's pages do not move on.
@Suite struct PagingTests {
    static let window = NotificationHistoryRequest(
        startDate: AppleDate(wholeMilliseconds: 1_000), endDate: AppleDate(wholeMilliseconds: 2_000))

    /// A notification history page named by the token that asked for it, and whether more follow.
    static func notificationPage(_ number: Int, next: String?) -> FakeReply {
        let token = next.map { #""paginationToken":"\#($0)","# } ?? ""
        return .json(
            #"{\#(token)"hasMore":\#(next != nil),"notificationHistory":[{"signedPayload":"payload-\#(number)"}]}"#)
    }

    /// The fake's notification history: three pages, chosen by the token asked with.
    static func threeNotificationPages(_ request: FakeRequest) -> FakeReply {
        switch request.query["paginationToken"] {
        case nil: notificationPage(1, next: "token-2")
        case "token-2": notificationPage(2, next: "token-3")
        case "token-3": notificationPage(3, next: nil)
        default: .appleError(status: 400, code: 4_000_014, message: "Invalid pagination token.")
        }
    }

    @Test func notificationHistoryWalksEveryPageByItsToken() throws {
        let harness = try APIHarness()
        harness.fake.respond(Self.threeNotificationPages)
        var pages = try harness.client.notificationHistory(Self.window)
        var payloads: [String?] = []
        while let page = try pages.next() { payloads += page.notificationHistory.map(\.signedPayload) }

        #expect(payloads == ["payload-1", "payload-2", "payload-3"])
        #expect(try pages.next() == nil)
        #expect(harness.fake.arrivals == 3)
        #expect(harness.fake.requests.map { $0.query["paginationToken"] } == [nil, "token-2", "token-3"])
        #expect(Set(harness.fake.requests.map { $0.body.map { "\($0)" } ?? "" }).count == 1, "the same body each time")
        #expect(harness.fake.rejections.isEmpty)
    }

    @Test func aWalkResumesAfterAStoredToken() throws {
        let harness = try APIHarness()
        harness.fake.respond(Self.threeNotificationPages)
        var first = try harness.client.notificationHistory(Self.window)
        _ = try first.next()
        let stored = try #require(first.cursor)

        var resumed = try harness.client.notificationHistory(Self.window, resumingAfter: stored)
        var payloads: [String?] = []
        while let page = try resumed.next() { payloads += page.notificationHistory.map(\.signedPayload) }

        #expect(stored == "token-2")
        #expect(payloads == ["payload-2", "payload-3"])
        #expect(harness.fake.arrivals == 3)
    }

    @Test func transactionHistoryWalksEveryPageByItsRevision() throws {
        let harness = try APIHarness()
        harness.fake.respond { request in
            let asked = request.query["revision"]
            let (number, next) = asked == nil ? (1, "rev-2") : asked == "rev-2" ? (2, "rev-3") : (3, "rev-4")
            return .json(
                #"{"revision":"\#(next)","hasMore":\#(number < 3),"bundleId":"com.example","#
                    + #""environment":"Sandbox","signedTransactions":["transaction-\#(number)"]}"#)
        }
        var request = TransactionHistoryRequest()
        request.sort = .ascending
        var pages = try harness.client.transactionHistory(transactionId: "1234", request)
        var transactions: [String] = []
        while let page = try pages.next() { transactions += page.signedTransactions }

        #expect(transactions == ["transaction-1", "transaction-2", "transaction-3"])
        #expect(harness.fake.requests.map { $0.query["revision"] } == [nil, "rev-2", "rev-3"])
        #expect(harness.fake.requests.allSatisfy { $0.query["sort"] == "ASCENDING" }, "the same query each time")
        #expect(pages.cursor == "rev-4", "the last page's revision asks later for what changed since")
    }

    @Test(arguments: [
        #"{"hasMore":true,"notificationHistory":[]}"#,
        #"{"hasMore":true,"paginationToken":"","notificationHistory":[]}"#,
        #"{"hasMore":true,"paginationToken":"token-1","notificationHistory":[]}"#,
    ])
    func aPageClaimingMoreWithoutANewTokenEndsTheWalk(_ body: String) throws {
        let harness = try APIHarness()
        harness.fake.reply(.json(body))
        var pages = try harness.client.notificationHistory(Self.window, resumingAfter: "token-1")
        let error = try #require(apiError { try pages.next() })

        #expect(error.code == .malformedResponse)
        #expect(error.message.contains("names no new page"), "\(error.message)")
        #expect(harness.fake.arrivals == 1)
    }

    /// A walk ends past its page limit however many new tokens the pages name, with the cursor
    /// of the last page fetched kept for the next walk to resume after; a walk that ends at the
    /// limit ends as any other.
    @Test func aWalkPastItsPageLimitEnds() throws {
        let harness = try APIHarness()
        harness.fake.respond { request in
            let number = Int(request.query["paginationToken"]?.dropFirst("token-".count) ?? "1") ?? 1
            return Self.notificationPage(number, next: "token-\(number + 1)")
        }
        var pages = try harness.client.notificationHistory(Self.window)
        pages.pageLimit = 4
        var walked = 0
        let error = apiError {
            while walked < 10, try pages.next() != nil { walked += 1 }
        }

        #expect(walked == 4)
        #expect(error?.code == .malformedResponse)
        #expect(error?.message.contains("more than 4 pages in one walk") == true, "\(String(describing: error))")
        #expect(harness.fake.arrivals == 4)
        #expect(pages.cursor == "token-5")

        harness.fake.respond(Self.threeNotificationPages)
        var three = try harness.client.notificationHistory(Self.window)
        three.pageLimit = 3
        var payloads = 0
        while let page = try three.next() { payloads += page.notificationHistory.count }
        #expect(payloads == 3)
    }

    /// Pages whose tokens go round (the third names the second's again) would be walked for
    /// ever, each time with its records: the walk ends at the first token it was given before.
    @Test(arguments: [nil, "token-2"])
    func aPageNamingATokenAlreadyWalkedEndsTheWalk(resumingAfter stored: String?) throws {
        let harness = try APIHarness()
        harness.fake.respond { request in
            switch request.query["paginationToken"] {
            case nil: Self.notificationPage(1, next: "token-2")
            case "token-2": Self.notificationPage(2, next: "token-3")
            default: Self.notificationPage(3, next: "token-2")
            }
        }
        var pages = try harness.client.notificationHistory(Self.window, resumingAfter: stored)
        var walked = 0
        let error = apiError {
            // Bounded here so that a walk going round fails the test instead of hanging it.
            while walked < 10, try pages.next() != nil { walked += 1 }
        }

        #expect(error?.code == .malformedResponse)
        #expect(error?.message.contains("names a page already walked") == true, "\(String(describing: error))")
        #expect(harness.fake.arrivals == (stored == nil ? 3 : 2))
    }
}
