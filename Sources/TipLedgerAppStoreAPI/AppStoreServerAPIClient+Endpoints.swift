// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension AppStoreServerAPIClient {
    /// Get Transaction Info: one transaction of any type, finished consumables included.
    /// One request (`GET /inApps/v1/transactions/{transactionId}`).
    ///
    /// - Throws: `AppStoreAPIError`; Apple's 404 `TransactionIdNotFoundError` for an unknown id.
    public func transactionInfo(transactionId: String) throws(AppStoreAPIError) -> TransactionInfoResponse {
        let id = try Self.pathParameter(transactionId, "transaction id")
        let body = try send(.getTransactionInfo, path: "/inApps/v1/transactions/\(id)")
        return try decode(body, .getTransactionInfo, TransactionInfoResponse.init)
    }

    /// Get Transaction History (v2): the customer's transactions, finished consumables included
    /// (v1 leaves them out), one request per page of up to 20
    /// (`GET /inApps/v2/history/{transactionId}?…&revision=…`).
    ///
    /// - Parameters:
    ///   - transactionId: any transaction id of the customer.
    ///   - revision: a `cursor` stored from an earlier walk, to go on after its last page.
    public func transactionHistory(
        transactionId: String, _ request: TransactionHistoryRequest = TransactionHistoryRequest(),
        resumingAfter revision: String? = nil
    ) throws(AppStoreAPIError) -> APIPages<HistoryResponse> {
        let id = try Self.pathParameter(transactionId, "transaction id")
        return APIPages(
            .getTransactionHistory, resumingAfter: revision,
            fetch: { [self] (revision) throws(AppStoreAPIError) in
                let query = request.queryItems + (revision.map { [("revision", $0)] } ?? [])
                let body = try send(.getTransactionHistory, path: "/inApps/v2/history/\(id)", query: query)
                return try decode(body, .getTransactionHistory, HistoryResponse.init)
            },
            progress: { ($0.hasMore, $0.revision) })
    }

    /// Get Notification History: the notifications Apple sent in a window, one request per page
    /// of up to 20 (`POST /inApps/v1/notifications/history?paginationToken=…`, the same body
    /// each time).
    ///
    /// - Parameter paginationToken: a `cursor` stored from an earlier walk, to go on after its
    ///   last page (Apple refuses an expired one: `PaginationTokenExpiredError`).
    /// - Throws: `invalidRequest` at once for a request Apple would refuse.
    public func notificationHistory(_ request: NotificationHistoryRequest, resumingAfter paginationToken: String? = nil)
        throws(AppStoreAPIError) -> APIPages<NotificationHistoryResponse>
    {
        let requestBody = try request.body()
        return APIPages(
            .getNotificationHistory, resumingAfter: paginationToken,
            fetch: { [self] (token) throws(AppStoreAPIError) in
                let body = try send(
                    .getNotificationHistory, path: "/inApps/v1/notifications/history",
                    query: token.map { [("paginationToken", $0)] } ?? [], body: requestBody)
                return try decode(body, .getNotificationHistory, NotificationHistoryResponse.init)
            },
            progress: { ($0.hasMore, $0.paginationToken) })
    }

    /// Look Up Order ID: the transactions of the order id on a customer's receipt e-mail.
    /// One request (`GET /inApps/v1/lookup/{orderId}`); Apple documents it for production only.
    public func lookUpOrderId(_ orderId: String) throws(AppStoreAPIError) -> OrderLookupResponse {
        let id = try Self.pathParameter(orderId, "order id")
        let body = try send(.lookUpOrderId, path: "/inApps/v1/lookup/\(id)")
        return try decode(body, .lookUpOrderId, OrderLookupResponse.init)
    }

    /// Get Refund History (v2): the customer's refunded transactions, oldest refund first, one
    /// request per page of up to 20 (`GET /inApps/v2/refund/lookup/{transactionId}?revision=…`).
    ///
    /// - Parameter revision: the `cursor` stored after an earlier walk, to get only later refunds.
    public func refundHistory(transactionId: String, resumingAfter revision: String? = nil)
        throws(AppStoreAPIError) -> APIPages<RefundHistoryResponse>
    {
        let id = try Self.pathParameter(transactionId, "transaction id")
        return APIPages(
            .getRefundHistory, resumingAfter: revision,
            fetch: { [self] (revision) throws(AppStoreAPIError) in
                let body = try send(
                    .getRefundHistory, path: "/inApps/v2/refund/lookup/\(id)",
                    query: revision.map { [("revision", $0)] } ?? [])
                return try decode(body, .getRefundHistory, RefundHistoryResponse.init)
            },
            progress: { ($0.hasMore, $0.revision) })
    }

    /// Send Consumption Information (v2): answers a consumption request about a transaction.
    /// One request (`PUT /inApps/v2/transactions/consumption/{transactionId}`); Apple answers 202.
    ///
    /// - Throws: `invalidRequest` at once for a body Apple would refuse.
    public func sendConsumptionInformation(transactionId: String, _ request: ConsumptionRequest)
        throws(AppStoreAPIError)
    {
        let id = try Self.pathParameter(transactionId, "transaction id")
        _ = try send(
            .sendConsumptionInformation, path: "/inApps/v2/transactions/consumption/\(id)", body: try request.body())
    }

    /// Request a Test Notification: Apple sends a `TEST` notification to the app's server URL.
    /// One request (`POST /inApps/v1/notifications/test`, no body).
    ///
    /// - Throws: Apple's 404 `ServerNotificationUrlNotFoundError` when no URL is set.
    public func requestTestNotification() throws(AppStoreAPIError) -> SendTestNotificationResponse {
        let body = try send(.requestTestNotification, path: "/inApps/v1/notifications/test")
        return try decode(body, .requestTestNotification, SendTestNotificationResponse.init)
    }

    /// Get Test Notification Status: whether and how Apple delivered a test notification.
    /// One request (`GET /inApps/v1/notifications/test/{testNotificationToken}`).
    ///
    /// - Throws: Apple's 404 `TestNotificationNotFoundError` while it is not yet known.
    public func testNotificationStatus(token: String) throws(AppStoreAPIError) -> CheckTestNotificationResponse {
        let id = try Self.pathParameter(token, "test notification token")
        let body = try send(.getTestNotificationStatus, path: "/inApps/v1/notifications/test/\(id)")
        return try decode(body, .getTestNotificationStatus, CheckTestNotificationResponse.init)
    }

    /// Decodes a 2xx body as `endpoint` documents it.
    private func decode<Model>(
        _ body: [UInt8], _ endpoint: Endpoint, _ model: (PayloadReader) throws(PayloadError) -> Model
    ) throws(AppStoreAPIError) -> Model {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(body)
        } catch {
            throw AppStoreAPIError(.malformedResponse, "\(endpoint.name): Apple's answer is not JSON: \(error)")
        }
        guard let object = parsed.objectValue else {
            throw AppStoreAPIError(.malformedResponse, "\(endpoint.name): Apple's answer is not a JSON object")
        }
        do {
            return try model(PayloadReader(object))
        } catch {
            throw AppStoreAPIError(.malformedResponse, "\(endpoint.name): Apple's answer does not fit: \(error)")
        }
    }

    /// `value` as a path segment: 1 to 128 of letters, digits, `-`, `.`, `_`, `~` (Apple's ids
    /// and tokens), so that it needs no escaping and cannot change the path.
    static func pathParameter(_ value: String, _ what: String) throws(AppStoreAPIError) -> String {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy(isUnreserved), value != ".", value != ".."
        else {
            throw AppStoreAPIError(
                .invalidRequest,
                "the \(what) '\(PrintableText.escaped(String(value.prefix(64))))' is not one Apple issues")
        }
        return value
    }
}
