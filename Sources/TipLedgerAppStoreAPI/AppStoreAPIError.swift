// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// Why the App Store Server API client could not be set up or a call failed: a stable code, a
/// message for people and, where one helps, a hint.
///
/// Messages never carry the signing key, a bearer token or a response body; text Apple sent
/// (`errorMessage`) is shown with control characters escaped. `Code.isConfiguration` tells the
/// errors the operator fixes in the settings (exit 64 on the command line) from the others.
public struct AppStoreAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Code
    /// What went wrong, naming the endpoint for a failed call.
    public let message: String
    /// What to do about it, when there is something to say.
    public let hint: String?
    /// The HTTP status of Apple's answer, when one came.
    public let status: Int?
    /// Apple's error body, when the answer carried one.
    public let apple: AppStoreErrorBody?
    /// For `rateLimited`: when Apple allows the next request (its `Retry-After`), when it said.
    public let retryAt: AppleDate?

    init(
        _ code: Code, _ message: String, hint: String? = nil, status: Int? = nil, apple: AppStoreErrorBody? = nil,
        retryAt: AppleDate? = nil
    ) {
        self.code = code
        self.message = message
        self.hint = hint
        self.status = status
        self.apple = apple
        self.retryAt = retryAt
    }

    public var description: String { message }

    /// The failure codes; the raw value is a stable snake_case name for scripts and JSON.
    public enum Code: String, Sendable, CaseIterable {
        /// The key, key id, issuer id or bundle id is missing or unusable.
        case invalidCredentials = "invalid_credentials"
        /// The environment, base URL, extra CA file or a limit is unusable.
        case invalidConfiguration = "invalid_configuration"
        /// A call's arguments are ones Apple would refuse; nothing was sent.
        case invalidRequest = "invalid_request"
        /// Apple answered 401: it does not accept the credentials.
        case unauthorized = "unauthorized"
        /// Apple answered with another error status (see `status` and `apple`).
        case appleError = "apple_error"
        /// Apple answered 429 and allows the next request later than the client waits.
        case rateLimited = "rate_limited"
        /// The connection or the whole exchange took longer than its timeout.
        case timedOut = "timed_out"
        /// No connection could be made, or it broke before the answer was complete.
        case connectionFailed = "connection_failed"
        /// The TLS handshake failed, most often because the server's certificate is not trusted.
        case tlsFailed = "tls_failed"
        /// The answer's body is larger than the configured bound; the transfer was abandoned.
        case responseTooLarge = "response_too_large"
        /// A successful answer's body is not the JSON the endpoint documents.
        case malformedResponse = "malformed_response"
        /// libcurl failed in another way.
        case transportFailed = "transport_failed"

        /// Whether the operator's settings are at fault, so that running again unchanged cannot help.
        public var isConfiguration: Bool {
            self == .invalidCredentials || self == .invalidConfiguration || self == .unauthorized
        }
    }

    /// Whether trying the same request again may succeed: a server error (5xx), an error Apple
    /// documents as retryable, a timeout or a broken connection. Still true of the error a call
    /// ends with after its last attempt: the request may succeed later.
    public var isRetryable: Bool {
        switch code {
        case .timedOut, .connectionFailed: true
        case .appleError: (status ?? 0) >= 500 || apple?.isRetryable == true
        default: false
        }
    }

    /// The same error with how many attempts were made added to the message.
    func after(attempts: Int) -> AppStoreAPIError {
        guard attempts > 1 else { return self }
        return AppStoreAPIError(
            code, "\(message) (after \(attempts) attempts)", hint: hint, status: status, apple: apple, retryAt: retryAt)
    }
}
