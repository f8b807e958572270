// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// The query routes through the router: restore and report behind the bearer token.
@Suite struct QueryRouteTests {
    static let otherAccount = "0b7c4d2e-91aa-4f3b-8c6d-2e1f0a9b8c7d"
    static let queryPaths = ["/v1/accounts/\(ServiceHarness.account)/transactions", "/v1/report"]

    /// A ledger with three tips of the test account (one of them refunded, one in EUR), one of
    /// another account, one older tip and one in Production.
    static func harnessWithTips(queryEnvironments: [AppStoreEnvironment]? = nil) throws -> ServiceHarness {
        let harness = try ServiceHarness(queryEnvironments: queryEnvironments)
        let day: Int64 = 86_400_000
        let reference = TestChains.referenceMilliseconds
        let tokens = [
            try TestChains.transaction(id: "2000000000000301", price: 990),
            try TestChains.transaction(id: "2000000000000302", productId: "com.example.tips.medium", price: 1990),
            try TestChains.transaction(
                id: "2000000000000303", price: 1090, currency: "EUR", purchaseDate: reference + 1),
            try TestChains.transaction(id: "2000000000000304", price: 4990, account: otherAccount),
            try TestChains.transaction(id: "2000000000000305", price: 990, purchaseDate: reference - 10 * day),
            try TestChains.transaction(id: "2000000000000306", price: 990, environment: "Production"),
        ]
        for token in tokens {
            #expect(harness.postTransaction(token).status == 200)
        }
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(301), signedDate: reference + day, around: tokens[1])
        #expect(harness.postNotification(refund).status == 200)
        return harness
    }

    @Test(arguments: queryPaths)
    func queryRouteIsNotFoundWithoutAConfiguredToken(path: String) throws {
        let harness = try ServiceHarness(apiToken: nil)

        for token in [nil, "", ServiceHarness.token] as [String?] {
            let response = harness.get(path, token: token)
            #expect(response.status == 404)
            #expect(try jsonObject(response)["error"] as? String == "not_found")
            #expect(response.headers["WWW-Authenticate"] == nil)
        }
        // Whatever the method: a 405 would tell that the route exists.
        for method in ["POST", "DELETE", "PUT"] {
            let response = harness.request(method, path)
            #expect(response.status == 404, "\(method)")
            #expect(response.headers["Allow"] == nil)
        }
    }

    /// Authorization headers that must not open the query routes.
    static let wrongAuthorizations: [String?] = [
        nil, "", "Bearer", "Bearer ", "Bearer wrong-token-0123456789", "Bearer \(ServiceHarness.token)x",
        "Bearer \(ServiceHarness.token.dropLast())", "Basic \(ServiceHarness.token)", ServiceHarness.token,
        "Bearer\t\(ServiceHarness.token)", "Token \(ServiceHarness.token)", "Bearer \(ServiceHarness.token) x",
    ]

    @Test(arguments: queryPaths, wrongAuthorizations)
    func queryRouteIsUnauthorizedWithoutTheRightToken(path: String, authorization: String?) throws {
        let harness = try ServiceHarness()

        let response = harness.request(
            "GET", path, headers: authorization.map { ["Authorization": $0] } ?? [:])

        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="tipledger""#)
        let body = try jsonObject(response)
        #expect(body["error"] as? String == "unauthorized")
        #expect(!response.bodyText.contains(ServiceHarness.token.prefix(12)), "the body repeats the token")
    }

    /// Two Authorization fields name no one credential, even when one of them is right.
    @Test(arguments: queryPaths)
    func twoAuthorizationFieldsAreUnauthorized(path: String) throws {
        let harness = try ServiceHarness()
        let right = HTTPHeaders.Field(name: "Authorization", value: "Bearer \(ServiceHarness.token)")
        let wrong = HTTPHeaders.Field(name: "authorization", value: "Bearer wrong-token-0123456789")

        #expect(harness.request("GET", path, headers: HTTPHeaders([right])).status == 200)
        #expect(harness.request("GET", path, headers: HTTPHeaders([right, wrong])).status == 401)
        #expect(harness.request("GET", path, headers: HTTPHeaders([wrong, right])).status == 401)
        #expect(harness.request("GET", path, headers: HTTPHeaders([right, right])).status == 401)
    }

    @Test(arguments: queryPaths, ["Bearer", "bearer", "BEARER", "bEaReR"])
    func bearerSchemeIsCaseInsensitive(path: String, scheme: String) throws {
        let harness = try ServiceHarness()

        let response = harness.request("GET", path, headers: ["Authorization": "\(scheme) \(ServiceHarness.token)"])

        #expect(response.status == 200)
    }

    /// Spaces may repeat after the scheme (RFC 9110 section 11.4), and whitespace after the
    /// value is not part of it (RFC 9112 section 5.1), though libmicrohttpd keeps it.
    @Test(
        arguments: queryPaths,
        [
            "Bearer  \(ServiceHarness.token)", "Bearer \(ServiceHarness.token) ", "Bearer \(ServiceHarness.token)\t",
        ])
    func theTokenMayHaveMoreSpaceAroundIt(path: String, authorization: String) throws {
        let harness = try ServiceHarness()

        #expect(harness.request("GET", path, headers: ["Authorization": authorization]).status == 200)
    }

    /// The tips of `harnessWithTips` as the restore JSON lists them, every field in its
    /// documented order, written out rather than rendered, so that a change of the contract shows.
    static let tipsJSON = [
        "305":
            #"{"environment":"Sandbox","transactionId":"2000000000000305","#
            + #""originalTransactionId":"2000000000000305","productId":"com.example.tips.small","#
            + #""purchaseDate":1766361600000,"quantity":1,"price":990,"currency":"USD","#
            + #""storefront":"USA","state":"finished","#
            + #""finished":true,"revocationDate":null,"#
            + #""revocationReason":null,"appTransactionId":null,"net_milli":990}"#,
        "306":
            #"{"environment":"Production","transactionId":"2000000000000306","#
            + #""originalTransactionId":"2000000000000306","productId":"com.example.tips.small","#
            + #""purchaseDate":1767225600000,"quantity":1,"price":990,"currency":"USD","#
            + #""storefront":"USA","state":"finished","#
            + #""finished":true,"revocationDate":null,"#
            + #""revocationReason":null,"appTransactionId":null,"net_milli":990}"#,
        "301":
            #"{"environment":"Sandbox","transactionId":"2000000000000301","#
            + #""originalTransactionId":"2000000000000301","productId":"com.example.tips.small","#
            + #""purchaseDate":1767225600000,"quantity":1,"price":990,"currency":"USD","#
            + #""storefront":"USA","state":"finished","#
            + #""finished":true,"revocationDate":null,"#
            + #""revocationReason":null,"appTransactionId":null,"net_milli":990}"#,
        "302":
            #"{"environment":"Sandbox","transactionId":"2000000000000302","#
            + #""originalTransactionId":"2000000000000302","productId":"com.example.tips.medium","#
            + #""purchaseDate":1767225600000,"quantity":1,"price":1990,"currency":"USD","#
            + #""storefront":"USA","state":"refunded","#
            + #""finished":true,"revocationDate":1767312000000,"#
            + #""revocationReason":0,"appTransactionId":null,"net_milli":0}"#,
        "303":
            #"{"environment":"Sandbox","transactionId":"2000000000000303","#
            + #""originalTransactionId":"2000000000000303","productId":"com.example.tips.small","#
            + #""purchaseDate":1767225600001,"quantity":1,"price":1090,"currency":"EUR","#
            + #""storefront":"USA","state":"finished","#
            + #""finished":true,"revocationDate":null,"#
            + #""revocationReason":null,"appTransactionId":null,"net_milli":1090}"#,
    ]

    /// The restore JSON of the test account, listing `listed` (keys of `tipsJSON`), with the
    /// totals of all its tips.
    static func restoreJSON(listing listed: [String]) -> String {
        #"{"account":"7e3fb20b-4cdb-47cc-936d-99d65f608138","transactions":["#
            + listed.compactMap { tipsJSON[$0] }.joined(separator: ",") + #"],"totals":["#
            + #"{"environment":"Production","currency":"USD","net_milli":990},"#
            + #"{"environment":"Sandbox","currency":"EUR","net_milli":1090},"#
            + #"{"environment":"Sandbox","currency":"USD","net_milli":1980}]}"#
    }

    /// The body is the JSON `tipledger restore --format json` prints (both render it with
    /// `RestoreRendering`), byte for byte; its fields are checked one by one below.
    @Test func restoreListsTheAccountsTips() throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get("/v1/accounts/\(ServiceHarness.account)/transactions")

        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.bodyText == Self.restoreJSON(listing: ["305", "306", "301", "303"]))
        let body = try jsonObject(response)
        #expect(body["account"] as? String == ServiceHarness.account)
        let transactions = try #require(body["transactions"] as? [[String: Any]])
        #expect(
            transactions.compactMap { $0["transactionId"] as? String }
                == ["2000000000000305", "2000000000000306", "2000000000000301", "2000000000000303"])
        #expect(transactions.allSatisfy { $0["state"] as? String == "finished" })
        let first = try #require(transactions.first)
        #expect(first["price"] as? Int == 990)
        #expect(first["currency"] as? String == "USD")
        #expect(first["finished"] as? Bool == true)
        let totals = try #require(body["totals"] as? [[String: Any]])
        let sandboxUSD = totals.first {
            $0["environment"] as? String == "Sandbox" && $0["currency"] as? String == "USD"
        }
        // The refunded 19.90 counts nothing; the other two count in full.
        #expect(sandboxUSD?["net_milli"] as? Int == 1980)
    }

    @Test(arguments: ["true", "1", "yes", "TRUE"])
    func restoreWithAllIncludesRefundedTips(all: String) throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get("/v1/accounts/\(ServiceHarness.account)/transactions", query: ["all": all])

        #expect(response.status == 200)
        #expect(response.bodyText == Self.restoreJSON(listing: ["305", "306", "301", "302", "303"]))
        let transactions = try #require(try jsonObject(response)["transactions"] as? [[String: Any]])
        #expect(transactions.count == 5)
        let refunded = try #require(transactions.first { $0["transactionId"] as? String == "2000000000000302" })
        #expect(refunded["state"] as? String == "refunded")
        #expect(refunded["revocationDate"] as? Int == Int(TestChains.referenceMilliseconds + 86_400_000))
    }

    @Test func restoreWithAllFalseIsTheDefaultList() throws {
        let harness = try Self.harnessWithTips()
        let path = "/v1/accounts/\(ServiceHarness.account)/transactions"

        let response = harness.get(path, query: ["all": "false"])

        #expect(response.status == 200)
        #expect(response.bodyText == harness.get(path).bodyText)
    }

    @Test func restoreKeepsToTheEnvironmentsAsked() throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get(
            "/v1/accounts/\(ServiceHarness.account)/transactions", query: ["environment": "Production"])

        #expect(response.status == 200)
        let transactions = try #require(try jsonObject(response)["transactions"] as? [[String: Any]])
        #expect(transactions.compactMap { $0["transactionId"] as? String } == ["2000000000000306"])
    }

    /// A service set up for some environments (`serve --environment`, `TIPLEDGER_ENVIRONMENT`)
    /// answers queries within them unless a request names others, as the CLI does.
    @Test func queriesKeepToTheServicesEnvironmentsUnlessAskedForOthers() throws {
        let harness = try Self.harnessWithTips(queryEnvironments: [.sandbox])
        func environments(_ response: HTTPResponse, _ list: String, _ field: String) throws -> Set<String> {
            #expect(response.status == 200)
            let items = try #require(try jsonObject(response)[list] as? [[String: Any]])
            return Set(items.compactMap { $0[field] as? String })
        }
        let restore = "/v1/accounts/\(ServiceHarness.account)/transactions"

        #expect(try environments(harness.get("/v1/report"), "rows", "environment") == ["Sandbox"])
        #expect(try environments(harness.get(restore), "totals", "environment") == ["Sandbox"])
        let production: HTTPQuery = ["environment": "Production"]
        #expect(try environments(harness.get("/v1/report", query: production), "rows", "environment") == ["Production"])
        #expect(try environments(harness.get(restore, query: production), "totals", "environment") == ["Production"])
    }

    /// A misspelt or unknown parameter is refused, not ignored: the answer would look like the
    /// one asked for.
    @Test(arguments: [["al": "1"], ["all": "banana"], ["environment": "Staging"], ["account": "x"]])
    func restoreWithAParameterItDoesNotTakeIsABadRequest(query: [String: String]) throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get(
            "/v1/accounts/\(ServiceHarness.account)/transactions",
            query: HTTPQuery(query.map { HTTPQuery.Item(name: $0.key, value: $0.value) }))

        #expect(response.status == 400)
        #expect(try jsonObject(response)["error"] as? String == "invalid_parameter")
    }

    @Test func restoreAcceptsAnUppercaseAccountAndAnswersInLowercase() throws {
        let harness = try Self.harnessWithTips()

        let lower = harness.get("/v1/accounts/\(ServiceHarness.account)/transactions")
        let upper = harness.get("/v1/accounts/\(ServiceHarness.account.uppercased())/transactions")

        #expect(upper.status == 200)
        #expect(upper.bodyText == lower.bodyText)
    }

    @Test func restoreOfAnAccountWithoutTipsIsEmpty() throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get("/v1/accounts/\(TestChains.uuid(999))/transactions")

        #expect(response.status == 200)
        #expect(response.bodyText == #"{"account":"\#(TestChains.uuid(999))","transactions":[],"totals":[]}"#)
    }

    @Test(arguments: [
        "not-a-uuid", "7e3fb20b4cdb47cc936d99d65f608138", "7e3fb20b-4cdb-47cc-936d-99d65f60813", "' OR 1=1 --", "",
    ])
    func restoreOfANonUUIDAccountIsABadRequest(account: String) throws {
        let harness = try ServiceHarness()

        let response = harness.get("/v1/accounts/\(account)/transactions")

        #expect(response.status == 400)
        #expect(try jsonObject(response)["error"] as? String == "invalid_account")
    }

    @Test func restoreChecksTheTokenBeforeTheAccount() throws {
        let harness = try ServiceHarness()

        #expect(harness.get("/v1/accounts/not-a-uuid/transactions", token: nil).status == 401)
    }

    @Test func reportParsesGroupingDatesEnvironmentAndCommission() throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get(
            "/v1/report",
            query: [
                "by": "currency", "since": "2025-12-31", "until": "2026-01-01", "environment": "Sandbox",
                "commission": "15%",
            ])

        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try jsonObject(response)
        #expect(body["commissionRate"] as? Double == 0.15)
        let rows = try #require(body["rows"] as? [[String: Any]])
        // Production and the tip from ten days before are left out; no group field by currency.
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0["environment"] as? String == "Sandbox" && $0["product"] == nil })
        let usd = try #require(rows.first { $0["currency"] as? String == "USD" })
        #expect(usd["transactions"] as? Int == 3)
        #expect(usd["gross_milli"] as? Int == 990 + 1990 + 4990)
        #expect(usd["refunded_milli"] as? Int == 1990)
        #expect(usd["revoked_milli"] as? Int == 0)
        #expect(usd["net_milli"] as? Int == 990 + 4990)
        #expect(usd["estimated_proceeds_milli"] as? Int == 5080)  // 5.98 × 0.85 = 5.083, to the cent
        let eur = try #require(rows.first { $0["currency"] as? String == "EUR" })
        #expect(eur["net_milli"] as? Int == 1090)
        #expect(body["openConsumptionRequests"] as? [Any] != nil)

        #expect(
            response.bodyText
                == #"{"rows":[{"environment":"Sandbox","currency":"EUR","transactions":1,"units":1,"gross_milli":1090,"#
                + #""refunded_milli":0,"revoked_milli":0,"net_milli":1090,"estimated_proceeds_milli":930},"#
                + #"{"environment":"Sandbox","currency":"USD","transactions":3,"units":3,"gross_milli":7970,"#
                + #""refunded_milli":1990,"revoked_milli":0,"net_milli":5980,"estimated_proceeds_milli":5080}],"#
                + #""commissionRate":0.15,"openConsumptionRequests":[]}"#)
    }

    @Test func reportWithoutParametersGroupsByProductOverEveryEnvironment() throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get("/v1/report")

        #expect(response.status == 200)
        let rows = try #require(try jsonObject(response)["rows"] as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["environment"] as? String }) == ["Sandbox", "Production"])
        #expect(rows.allSatisfy { $0["product"] is String && $0["estimated_proceeds_milli"] == nil })
        let medium = try #require(rows.first { $0["product"] as? String == "com.example.tips.medium" })
        #expect(medium["refunded_milli"] as? Int == 1990)
    }

    @Test(arguments: [
        ("by", "week"), ("by", ""), ("since", "yesterday"), ("since", "2026-01-01junk"), ("since", "2026-1-1"),
        ("until", "2026-02-30"), ("until", "2025-02-29"), ("until", "2026-13-01"),
        ("since", "2026-01-01T00:00:00Zjunk"),
        ("since", "2026-01-01T24:00:00Z"), ("since", "2026-01-01 00:00:00Z"), ("until", "20260101"),
        ("environment", "Staging"), ("environment", ""), ("commission", "100%"), ("commission", "abc"),
        ("commission", "-0.1"), ("commission", "1.5"), ("commission", "nan"),
    ])
    func reportRejectsABadParameter(name: String, value: String) throws {
        let harness = try ServiceHarness()

        let response = harness.get("/v1/report", query: HTTPQuery([.init(name: name, value: value)]))

        #expect(response.status == 400, "\(name)=\(value)")
        let body = try jsonObject(response)
        #expect(body["error"] as? String == "invalid_parameter", "\(name)=\(value)")
        let message = try #require(body["message"] as? String)
        #expect(message.hasPrefix(name), "\(name)=\(value): \(message)")
    }

    @Test(arguments: [
        "2026-01-01", "2024-02-29", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z", "2026-01-01T01:00:00+01:00",
    ])
    func reportAcceptsADateOrATimestamp(since: String) throws {
        let harness = try Self.harnessWithTips()

        let response = harness.get("/v1/report", query: ["since": since, "by": "currency"])

        #expect(response.status == 200, "\(since)")
        let rows = try #require(try jsonObject(response)["rows"] as? [[String: Any]])
        #expect(rows.count == 3, "\(since)")  // Sandbox USD and EUR, Production USD
    }

    @Test(arguments: ["bogus", "format", "Since", "environments"])
    func reportRejectsAParameterItDoesNotTake(_ name: String) throws {
        let harness = try ServiceHarness()

        let response = harness.get("/v1/report", query: HTTPQuery([.init(name: name, value: "2026-01-01")]))

        #expect(response.status == 400)
        let body = try jsonObject(response)
        #expect(body["error"] as? String == "invalid_parameter")
        #expect(
            body["message"] as? String
                == "unknown parameter '\(name)'; the report route takes by, commission, environment, since, until")
    }

    /// A parameter given twice is refused: which of its values would count is anybody's guess.
    @Test func aParameterGivenTwiceIsABadRequest() throws {
        let harness = try Self.harnessWithTips()
        let twice = { (name: String, values: [String]) in
            HTTPQuery(values.map { HTTPQuery.Item(name: name, value: $0) })
        }

        let report = harness.get("/v1/report", query: twice("by", ["currency", "product"]))
        let restore = harness.get(
            "/v1/accounts/\(ServiceHarness.account)/transactions", query: twice("all", ["true", "false"]))

        #expect(report.status == 400)
        #expect(try jsonObject(report)["message"] as? String == "by is given more than once")
        #expect(restore.status == 400)
        #expect(try jsonObject(restore)["message"] as? String == "all is given more than once")
    }

    /// The routes that take no parameters refuse any, as the query routes refuse those they
    /// do not take.
    @Test(arguments: [
        ("GET", "/healthz", "healthz"), ("GET", "/metrics", "metrics"), ("POST", "/v1/transactions", "transactions"),
        ("POST", "/v1/notifications", "notifications"),
    ])
    func aRouteWithoutParametersRefusesAny(_ method: String, _ path: String, _ route: String) throws {
        let harness = try ServiceHarness()

        let response = harness.request(method, path, query: ["x": "1"], body: Array("{}".utf8))

        #expect(response.status == 400)
        let body = try jsonObject(response)
        #expect(body["error"] as? String == "invalid_parameter")
        #expect(body["message"] as? String == "unknown parameter 'x'; the \(route) route takes none")
        #expect(try harness.count("evidence") == 0)
    }

    @Test func reportRejectsSinceAfterUntil() throws {
        let harness = try ServiceHarness()

        let response = harness.get("/v1/report", query: ["since": "2026-02-01", "until": "2026-01-01"])

        #expect(response.status == 400)
        #expect(try jsonObject(response)["error"] as? String == "invalid_parameter")
    }
}
