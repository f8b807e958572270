// SPDX-License-Identifier: GPL-3.0-or-later

/// Why a signed payload was rejected: a stable code, a message for people, and the status name
/// Apple's App Store Server Library uses for the same failure.
public struct VerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Code
    /// What exactly was wrong; never contains the token itself, nor a control character.
    public let message: String
    /// Whether this is an `environmentNotAccepted` rejection, of the payload or of one it carries.
    public let isEnvironmentNotAccepted: Bool

    public init(_ code: Code, _ message: String) {
        self.init(code, message, isEnvironmentNotAccepted: false)
    }

    private init(_ code: Code, _ message: String, isEnvironmentNotAccepted: Bool) {
        self.code = code
        // A message may quote a value from a header no signature has vouched for yet.
        self.message = PrintableText.escaped(message)
        self.isEnvironmentNotAccepted = isEnvironmentNotAccepted
    }

    /// The rejection of a payload whose environment the policy does not accept (rather than
    /// one that lacks or contradicts its environment), which accepting it would have avoided.
    public static func environmentNotAccepted(_ environment: String) -> VerificationError {
        VerificationError(
            .wrongEnvironment, "environment \(environment.prefix(40)) is not accepted", isEnvironmentNotAccepted: true)
    }

    /// The rejection of input that is not UTF-8 (`subject` says which: "the line", "the
    /// body"), the same from `verify` and `serve`: a token and the JSON around it are text, and
    /// bytes replaced to make text of it would be read as something never sent.
    public static func notUTF8(_ subject: String) -> VerificationError {
        VerificationError(.malformedJWS, "\(subject) is not UTF-8 text")
    }

    /// Apple's `VerificationStatus` / `VerificationError` name for this failure.
    public var appleStatus: String { code.appleStatus }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The same error with `context` (such as `data.signedTransactionInfo`) before the message.
    public func within(_ context: String) -> VerificationError {
        VerificationError(code, "\(context): \(message)", isEnvironmentNotAccepted: isEnvironmentNotAccepted)
    }

    /// The rejection codes; the raw value is the stable snake_case name used in JSON.
    public enum Code: String, Sendable, CaseIterable {
        case tooLarge = "too_large"
        case malformedJWS = "malformed_jws"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case invalidChainLength = "invalid_chain_length"
        case invalidCertificate = "invalid_certificate"
        case untrustedChain = "untrusted_chain"
        case certificateNotValidAtSignedDate = "certificate_not_valid_at_signed_date"
        case missingAppleOID = "missing_apple_oid"
        case badSignature = "bad_signature"
        case invalidPayload = "invalid_payload"
        case wrongBundleId = "wrong_bundle_id"
        case wrongAppAppleId = "wrong_app_apple_id"
        case wrongEnvironment = "wrong_environment"
        /// With online checks: the leaf or intermediate certificate's responder says it is revoked.
        case certificateRevoked = "certificate_revoked"
        /// With strict online checks: no trustworthy answer came from the responder.
        case revocationUnavailable = "revocation_unavailable"

        /// Apple's status name for the same failure.
        public var appleStatus: String {
            switch self {
            case .tooLarge, .malformedJWS, .unsupportedAlgorithm, .invalidPayload: "INVALID_JWT_FORMAT"
            case .invalidChainLength: "INVALID_CHAIN_LENGTH"
            case .invalidCertificate: "INVALID_CERTIFICATE"
            case .untrustedChain, .certificateNotValidAtSignedDate, .missingAppleOID, .badSignature,
                .certificateRevoked:
                "VERIFICATION_FAILURE"
            case .revocationUnavailable: "RETRYABLE_VERIFICATION_FAILURE"
            case .wrongBundleId, .wrongAppAppleId: "INVALID_APP_IDENTIFIER"
            case .wrongEnvironment: "INVALID_ENVIRONMENT"
            }
        }

        /// Whether the same token may be accepted when sent again later: the rejection is about
        /// a responder, not the token.
        public var isRetryable: Bool { self == .revocationUnavailable }
    }
}
