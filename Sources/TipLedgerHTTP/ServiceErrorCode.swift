// SPDX-License-Identifier: GPL-3.0-or-later

/// The codes of the service's own errors, those about the request rather than a signed payload
/// (a payload's rejection carries its `VerificationError` code), each with the status it is sent
/// with.
///
/// The raw values are part of the HTTP contract: clients branch on them.
public enum ServiceErrorCode: String, Sendable, CaseIterable {
    /// The transport cannot tell where the body ends (conflicting framing fields).
    case badRequest = "bad_request"
    case unauthorized
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case bodyTooLarge = "body_too_large"
    /// A restore path whose account is not an appAccountToken UUID.
    case invalidAccount = "invalid_account"
    /// A query parameter the route does not take, one given twice, or a value it cannot read.
    case invalidParameter = "invalid_parameter"
    /// The handler's response could not be sent as it was.
    case internalError = "internal_error"
    /// The ledger is busy or unavailable; the client should retry.
    case unavailable

    /// The HTTP status this error is answered with.
    public var status: Int {
        switch self {
        case .badRequest, .invalidAccount, .invalidParameter: 400
        case .unauthorized: 401
        case .notFound: 404
        case .methodNotAllowed: 405
        case .bodyTooLarge: 413
        case .internalError: 500
        case .unavailable: 503
        }
    }
}
