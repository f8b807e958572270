// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// One exchange with the App Store Server API, as the client's observer hears of it: which
/// endpoint, and Apple's status or why no answer came.
///
/// Every attempt is one exchange, so a call retried twice is three. The labels come from fixed
/// sets (the endpoints the client calls, HTTP statuses, `AppStoreAPIError.Code` names), so they
/// can label metrics without growing the set of series.
public struct APIExchange: Sendable, Equatable {
    /// The endpoint in snake_case, e.g. `get_notification_history`.
    public let endpoint: String
    /// Apple's name for the endpoint, e.g. `Get Notification History`.
    public let endpointName: String
    /// Apple's HTTP status; nil when no answer came (see `failure`).
    public let status: Int?
    /// Why no answer came (`timed_out`, `connection_failed`, ...); nil when one did.
    public let failure: AppStoreAPIError.Code?
    /// For a 429: when Apple allows the next request, when it said.
    public let retryAt: AppleDate?

    /// The status as a label: the number, or the failure's code.
    public var outcome: String { status.map(String.init) ?? failure?.rawValue ?? "unknown" }
}
