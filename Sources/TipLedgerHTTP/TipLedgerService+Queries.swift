// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// The query routes, restore, report and the report page: they exist only with an API token
/// configured, answer GET and HEAD, need the token, and refuse a parameter they do not take.
extension TipLedgerService {
    /// A query route: it exists only with an API token configured (404 for every method
    /// otherwise, so it cannot be told apart from a path that never existed), answers GET and
    /// HEAD, and needs the token (with `basic`, a Basic password does too: a browser's way).
    func query(_ request: HTTPRequest, method: String, basic: Bool = false, _ body: () -> HTTPResponse)
        -> HTTPResponse
    {
        guard let authorization else { return Self.notFound }
        guard method == "GET" else { return Self.methodNotAllowed("GET") }
        guard authorization.admits(request.headers, basic: basic) else {
            return basic ? BearerAuthorization.basicChallenge : BearerAuthorization.challenge
        }
        return body()
    }

    func restore(_ request: HTTPRequest, account: String) -> HTTPResponse {
        guard Ledger.isAccountToken(account) else {
            return .error(.invalidAccount, "the account is an appAccountToken UUID")
        }
        if let refusal = request.query.refusal(takes: Self.restoreParameters, route: "restore") {
            return refusal
        }
        var includeAll = false
        if let all = request.query["all"] {
            switch all.lowercased() {
            case "1", "true", "yes": includeAll = true
            case "0", "false", "no": includeAll = false
            default:
                return .error(.invalidParameter, "all takes true or false (1/0, yes/no)")
            }
        }
        guard let scope = environmentScope(request) else { return Self.badEnvironmentList }
        do {
            let restore = try ledger.restore(
                account: account.lowercased(), includeAll: includeAll, environments: scope.environments)
            let rendering = RestoreRendering(restore: restore, key: .account(account.lowercased()), catalog: catalog)
            return .json(body: Array(rendering.json.utf8))
        } catch {
            return unavailable(error)
        }
    }

    /// The query parameters each query route takes; any other is refused rather than ignored,
    /// so a misspelt filter cannot pass for no filter.
    static let reportParameters: Set<String> = ["by", "since", "until", "environment", "commission"]
    static let restoreParameters: Set<String> = ["all", "environment"]

    /// The environments a query keeps to (nil for all of them).
    private struct EnvironmentScope {
        let environments: [AppStoreEnvironment]?
    }

    /// Those the request's `environment` parameter lists, else the service's own; nil when the
    /// parameter is malformed.
    private func environmentScope(_ request: HTTPRequest) -> EnvironmentScope? {
        guard let list = request.query["environment"] else { return EnvironmentScope(environments: queryEnvironments) }
        return AppStoreEnvironment.parseList(list).map {
            EnvironmentScope(environments: AppStoreEnvironment.queryScope($0))
        }
    }

    private static let badEnvironmentList = HTTPResponse.error(
        .invalidParameter, "environment lists Production, Sandbox, Xcode or LocalTesting, separated by commas")

    /// Answers a report route: `answer` with the query and commission rate the request's
    /// parameters give, a 400 when they cannot be read, a 503 when the ledger cannot answer.
    private func reportRoute(
        _ request: HTTPRequest, route: String, _ answer: (ReportQuery, CommissionRate?) throws -> HTTPResponse
    ) -> HTTPResponse {
        if let refusal = request.query.refusal(takes: Self.reportParameters, route: route) {
            return refusal
        }
        guard let scope = environmentScope(request) else { return Self.badEnvironmentList }
        let query: ReportQuery
        let commission: CommissionRate?
        do throws(ReportQuery.ParameterError) {
            query = try ReportQuery(
                by: request.query["by"], since: request.query["since"], until: request.query["until"],
                environments: scope.environments)
            commission = try request.query["commission"].map { (text) throws(ReportQuery.ParameterError) in
                try CommissionRate(parsing: text)
            }
        } catch {
            return .error(.invalidParameter, "\(error.parameter) takes \(error.expected)")
        }
        do {
            return try answer(query, commission)
        } catch {
            return unavailable(error)
        }
    }

    func report(_ request: HTTPRequest) -> HTTPResponse {
        reportRoute(request, route: "report") { query, commission in
            let report = try ledger.report(query, now: clock.now().wholeMilliseconds)
            let rendering = ReportRendering(
                report: report, grouping: query.grouping, commission: commission, catalog: catalog)
            return .json(body: Array(rendering.json.utf8))
        }
    }

    /// The report as a page for a browser (`ReportRendering.html`), sent with the page's
    /// Content-Security-Policy, and kept by no cache: it shows a business's takings.
    func reportPage(_ request: HTTPRequest) -> HTTPResponse {
        reportRoute(request, route: "report.html") { query, commission in
            let now = clock.now().wholeMilliseconds
            let overview = try ledger.overview(
                query, now: now, rowLimit: ReportRendering.pageRows, supporters: ReportRendering.pageSupporters)
            let rendering = ReportRendering(
                report: overview.report, grouping: query.grouping, commission: commission, catalog: catalog)
            var response = HTTPResponse.text(
                rendering.html(overview, query: query, generated: now), contentType: "text/html; charset=utf-8")
            response.headers.set(
                "Content-Security-Policy", ReportRendering.pageContentSecurityPolicy + "; frame-ancestors 'none'")
            response.headers.set("Cache-Control", "no-store")
            response.headers.set("X-Content-Type-Options", "nosniff")
            response.headers.set("Referrer-Policy", "no-referrer")
            return response
        }
    }
}
