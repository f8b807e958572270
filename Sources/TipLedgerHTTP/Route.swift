// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerStore

/// The resources the service serves (docs/http.md), read from a request's path. The one place
/// that knows the paths' shape: the service dispatches on it, `/metrics` labels by it, and the
/// access log masks by it.
enum Route: Equatable {
    case notifications, transactions, report, reportPage, healthz, metrics, unknown
    /// `/v1/accounts/{account}/transactions`.
    case accounts(String)

    /// The route of `path`, read after its first slash.
    init(path: String) {
        let parts = Self.segments(of: path).dropFirst().map(String.init)
        switch parts {
        case ["v1", "notifications"]: self = .notifications
        case ["v1", "transactions"]: self = .transactions
        case let parts
        where parts.count == 4 && parts[0] == "v1" && parts[1] == "accounts" && parts[3] == "transactions":
            self = .accounts(parts[2])
        case ["v1", "report"]: self = .report
        case ["v1", "report.html"]: self = .reportPage
        case ["healthz"]: self = .healthz
        case ["metrics"]: self = .metrics
        default: self = .unknown
        }
    }

    /// The metrics label: one of a fixed set, whatever the path.
    var name: String {
        switch self {
        case .notifications: "notifications"
        case .transactions: "transactions"
        case .accounts: "accounts"
        case .report: "report"
        case .reportPage: "report_page"
        case .healthz: "healthz"
        case .metrics: "metrics"
        case .unknown: "unknown"
        }
    }

    /// Longest path segment a log shows as it is: shorter than any API token, and longer than
    /// every route's own segments (`notifications` is the longest).
    static let longestLoggedSegment = TipLedgerService.shortestAPIToken - 1

    /// `path` as a log may show it, whatever route it names or fails to: what follows
    /// `accounts` is an account however it is written (a UUID without its dashes, in capitals),
    /// and so is a UUID anywhere else, each shown as `:account`; a segment as long as an API
    /// token or longer (a token or a JWS sent in the path by mistake) is shown as `:long`.
    static func loggedPath(_ path: String) -> String {
        let segments = Self.segments(of: path)
        return segments.indices.map { index in
            let segment = segments[index]
            if index > 0 && segments[index - 1] == "accounts" && !segment.isEmpty { return ":account" }
            if Ledger.isAccountToken(String(segment)) { return ":account" }
            return segment.utf8.count > longestLoggedSegment ? ":long" : String(segment)
        }.joined(separator: "/")
    }

    /// The path cut at every slash, empty segments kept.
    private static func segments(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false)
    }
}
