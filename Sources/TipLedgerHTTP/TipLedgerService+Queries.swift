// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// The query routes, restore and report: they exist only with an API token configured, answer
/// GET and HEAD, need the token, and refuse a parameter they do not take.
extension TipLedgerService {
    /// A query route: it exists only with an API token configured (404 for every method
    /// otherwise, so it cannot be told apart from a path that never existed), answers GET and
    /// HEAD, and needs the token.
    func query(_ request: HTTPRequest, method: String, _ body: () -> HTTPResponse) -> HTTPResponse {
        guard let authorization else { return Self.notFound }
        guard method == "GET" else { return Self.methodNotAllowed("GET") }
        return authorization.admits(request.headers) ? body() : BearerAuthorization.challenge
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

    func report(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = request.query.refusal(takes: Self.reportParameters, route: "report") {
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
            let report = try ledger.report(query, now: clock.now().wholeMilliseconds)
            let rendering = ReportRendering(
                report: report, grouping: query.grouping, commission: commission, catalog: catalog)
            return .json(body: Array(rendering.json.utf8))
        } catch {
            return unavailable(error)
        }
    }
}
