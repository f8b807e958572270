// SPDX-License-Identifier: GPL-3.0-or-later

/// What a verified OCSP response says about one certificate (RFC 6960, `SingleResponse`).
public struct OCSPAnswer: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        case good
        /// Revoked at `revokedAt` (seconds since 1970) for `reason` (`CRLReason`, -1 when the
        /// responder gave none).
        case revoked(revokedAt: Int64, reason: Int32)
        /// The responder does not know the certificate.
        case unknown
    }

    public let status: Status
    /// When the responder knew the status to be correct, seconds since 1970.
    public let thisUpdate: Int64
    /// When newer information will be available, seconds since 1970; nil when the responder
    /// always has newer information (the answer is then not to be kept).
    public let nextUpdate: Int64?
}

/// Why an OCSP response cannot be relied on: it is not a response, the responder declined, it is
/// not signed by the certificate's issuer or a responder the issuer delegated to, its nonce is not
/// the request's, it does not speak of the certificate, or it is outside its validity.
public struct OCSPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
