// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `GET /v1/report.html`: the report as a page, behind the same token as `/v1/report`, which a
/// browser may send as the password of HTTP Basic authentication.
@Suite struct ReportPageRouteTests {
    static let path = "/v1/report.html"

    /// `Authorization: Basic` with `user` and `password`, as a browser sends it.
    static func basic(_ user: String, _ password: String) -> HTTPHeaders {
        ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    /// With the token as a bearer token or as a Basic password, whatever the user name.
    @Test(
        arguments: [
            ["Authorization": "Bearer \(ServiceHarness.token)"], basic("tipledger", ServiceHarness.token),
            basic("", ServiceHarness.token), basic("owner@example.com", ServiceHarness.token),
            ["Authorization": "basic " + Data("x:\(ServiceHarness.token)".utf8).base64EncodedString()],
        ] as [HTTPHeaders])
    func thePageOpensWithTheToken(_ headers: HTTPHeaders) throws {
        let harness = try QueryRouteTests.harnessWithTips()

        let response = harness.request("GET", Self.path, headers: headers)

        #expect(response.status == 200, "\(response.bodyText.prefix(300))")
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(
            response.headers["Content-Security-Policy"]
                == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'")
        #expect(response.bodyText.hasPrefix("<!DOCTYPE html>"))
    }

    /// Anything else gets the Basic challenge, which makes a browser ask for the password.
    @Test(
        arguments: [
            [:], ["Authorization": "Bearer wrong-token-0123456789"], basic("tipledger", "wrong-token-0123456789"),
            basic("tipledger", ServiceHarness.token + "x"), basic(ServiceHarness.token, ""),
            ["Authorization": "Basic \(ServiceHarness.token)"],
            ["Authorization": "Basic " + Data(ServiceHarness.token.utf8).base64EncodedString()],
            ["Authorization": "Basic"], ["Authorization": "Digest \(ServiceHarness.token)"],
        ] as [HTTPHeaders])
    func anyOtherCredentialIsAskedForAgain(_ headers: HTTPHeaders) throws {
        let harness = try ServiceHarness()

        let response = harness.request("GET", Self.path, headers: headers)

        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Basic realm="tipledger", charset="UTF-8""#)
        #expect(try jsonObject(response)["error"] as? String == "unauthorized")
        #expect(!response.bodyText.contains(ServiceHarness.token.prefix(12)), "the body repeats the token")
    }

    /// The JSON routes keep to the bearer token: a Basic credential, right password or not,
    /// opens none of them.
    @Test(arguments: QueryRouteTests.queryPaths)
    func theJSONRoutesTakeNoBasicCredential(_ path: String) throws {
        let harness = try ServiceHarness()

        let response = harness.request("GET", path, headers: Self.basic("tipledger", ServiceHarness.token))

        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="tipledger""#)
    }

    @Test func thePageIsNotFoundWithoutAConfiguredToken() throws {
        let harness = try ServiceHarness(apiToken: nil)

        let response = harness.request("GET", Self.path, headers: Self.basic("tipledger", ServiceHarness.token))

        #expect(response.status == 404)
        #expect(response.headers["WWW-Authenticate"] == nil)
    }

    /// The page takes the report's parameters and refuses what the report refuses.
    @Test(arguments: [
        ("by", "tip", "by takes one of product, currency, storefront, account, day, month"),
        ("since", "yesterday", "since takes a date like 2025-10-01 or 2025-10-01T07:00:00Z"),
        (
            "verbose", "1",
            "unknown parameter 'verbose'; the report.html route takes by, commission, environment, since, until"
        ),
    ])
    func thePageRefusesWhatTheReportRefuses(_ name: String, _ value: String, _ message: String) throws {
        let harness = try ServiceHarness()

        let response = harness.get(Self.path, query: HTTPQuery([.init(name: name, value: value)]))

        #expect(response.status == 400)
        #expect(try jsonObject(response)["message"] as? String == message)
    }

    /// The page's table holds the figures `/v1/report` gives for the same parameters, row by row.
    @Test(arguments: ["product", "currency", "storefront", "account", "day", "month"])
    func thePagesTableHoldsTheReportsFigures(_ grouping: String) throws {
        let harness = try QueryRouteTests.harnessWithTips()
        let query: HTTPQuery = ["by": grouping, "commission": "15%", "environment": "Sandbox"]

        let page = harness.get(Self.path, query: query)
        let report = harness.get("/v1/report", query: query)

        try #require(page.status == 200 && report.status == 200)
        let rows = try #require(try jsonObject(report)["rows"] as? [[String: Any]])
        let cells = PageCells(page.bodyText)
        let fields = ["gross_milli", "refunded_milli", "revoked_milli", "net_milli", "estimated_proceeds_milli"]
        #expect(cells.rows.count == rows.count)
        for (row, cells) in zip(rows, cells.rows) {
            for field in fields {
                #expect(cells[field] == (row[field] as? Int).map(String.init), "\(grouping) \(field)")
            }
        }
    }
}
