// SPDX-License-Identifier: GPL-3.0-or-later

/// One HTTP request as the handler sees it: fully received, its body at most the server's limit.
///
/// The server builds it only once the whole request has arrived; a router can also build one
/// directly in tests. Nothing in it refers to the connection, so it may be kept or sent anywhere.
public struct HTTPRequest: Sendable, Equatable {
    /// The method as sent (`GET`, `POST`, …); HTTP methods are case-sensitive.
    public let method: String
    /// The path without the query string, percent-decoded by libmicrohttpd (`/v1/report`).
    public let path: String
    /// The query string's parameters, percent-decoded.
    public let query: HTTPQuery
    /// The request's header fields; look them up case-insensitively.
    public let headers: HTTPHeaders
    /// The request body; empty when there was none.
    public let body: [UInt8]
    /// The client's IP address (`127.0.0.1`, `::1`), without the port; empty when unknown.
    public let remoteAddress: String

    public init(
        method: String, path: String, query: HTTPQuery = [:], headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}
