// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerHTTP

/// A request the fake App Store Server API accepted, as it checked it.
public struct FakeRequest: Sendable {
    public let endpoint: FakeEndpoint
    /// The path's parameter (`{transactionId}`, `{orderId}`, `{testNotificationToken}`), if any.
    public let parameter: String?
    public let query: HTTPQuery
    /// The JSON body, for the endpoints that take one.
    public let body: JSONObject?
    /// The bearer token's header and claims, signature checked.
    public let tokenHeader: JSONObject
    public let claims: JSONObject
    public let headers: HTTPHeaders
    /// The fake's clock when the request arrived, when it has one.
    public let arrivedAt: AppleDate?
}
