// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// Where and how the client reaches the App Store Server API: the environment, a replacement
/// base URL for a test server, an extra certificate authority to trust, timeouts and bounds.
///
/// A client serves one environment: Production or Sandbox. With `baseURL` set, requests go there
/// instead of to Apple, and `environment` still chooses the request rates. Certificates are
/// always verified, against the system's store plus `extraCertificateAuthorityFile`.
public struct AppStoreAPIConfiguration: Sendable {
    /// Production or Sandbox; Xcode and LocalTesting have no server.
    public var environment: AppStoreEnvironment
    /// `https://host[:port]` to send requests to instead of Apple's URL for `environment`.
    public var baseURL: String?
    /// A PEM file of certificate authorities to trust besides the system's (a test server's CA).
    public var extraCertificateAuthorityFile: String?
    /// The tipledger version the `User-Agent` names (`tipledger/0.1.0`).
    public var tipledgerVersion: String
    /// Longest wait for a connection, TLS handshake included.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest one exchange may take, from connecting to the last byte of the answer.
    public var requestTimeout: Duration = .seconds(30)
    /// Largest answer body read; a larger one is abandoned as it arrives. Apple's own library
    /// allows 1 MiB, several times a full page of notifications.
    public var maximumResponseBytes: Int = 1 << 20
    /// Most attempts at one request, the first included, when answers are retryable.
    public var maximumAttempts: Int = 5
    /// The backoff before the first retry; it doubles for each further one, up to `maximumBackoff`,
    /// and each wait is drawn at random from its upper half (jitter).
    public var initialBackoff: Duration = .milliseconds(500)
    /// The longest backoff between two attempts.
    public var maximumBackoff: Duration = .seconds(30)
    /// The longest wait for Apple's `Retry-After` after a 429; a later time fails the call with
    /// `rateLimited` (and the time) instead of waiting.
    public var maximumRetryAfter: Duration = .seconds(60)

    /// Apple's production URL.
    public static let productionURL = "https://api.storekit.apple.com"
    /// Apple's sandbox URL.
    public static let sandboxURL = "https://api.storekit-sandbox.apple.com"

    public init(environment: AppStoreEnvironment, tipledgerVersion: String) {
        self.environment = environment
        self.tipledgerVersion = tipledgerVersion
    }

    /// The URL requests go to, without a trailing slash; checked by `validate`.
    var resolvedBaseURL: String {
        guard let baseURL else { return environment == .production ? Self.productionURL : Self.sandboxURL }
        return baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// `tipledger/<version>`.
    var userAgent: String { "tipledger/\(tipledgerVersion)" }

    /// Throws `invalidConfiguration` when a setting cannot work.
    func validate() throws(AppStoreAPIError) {
        guard environment == .production || environment == .sandbox else {
            throw invalid(
                "the App Store Server API has no \(environment.rawValue) environment",
                hint: "name Production or Sandbox")
        }
        if let baseURL {
            try Self.checkBaseURL(baseURL)
        }
        guard !tipledgerVersion.isEmpty, tipledgerVersion.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw invalid("the version '\(tipledgerVersion)' cannot go into a User-Agent")
        }
        guard connectTimeout >= .milliseconds(1), requestTimeout >= .milliseconds(1) else {
            throw invalid("timeouts must be at least 1 ms")
        }
        guard (1...(64 << 20)).contains(maximumResponseBytes) else {
            throw invalid("the response bound \(maximumResponseBytes) bytes is not in 1…64 MiB")
        }
        guard (1...10).contains(maximumAttempts) else {
            throw invalid("the most attempts \(maximumAttempts) is not in 1…10")
        }
        guard initialBackoff >= .zero, maximumBackoff >= initialBackoff, maximumRetryAfter >= .zero else {
            throw invalid("the backoff and Retry-After bounds must be positive, the backoff at most its maximum")
        }
    }

    /// A base URL is `https://` and a host (with an optional port), nothing after it but `/`.
    private static func checkBaseURL(_ url: String) throws(AppStoreAPIError) {
        let hint = "give https://HOST[:PORT], e.g. https://localhost:8443"
        guard url.hasPrefix("https://") else {
            throw invalid("the API URL '\(PrintableText.escaped(url))' is not https://", hint: hint)
        }
        var authority = url.dropFirst("https://".count)
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        let allowed = authority.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
        }
        guard !authority.isEmpty, allowed, !authority.hasPrefix(":") else {
            throw invalid("the API URL '\(PrintableText.escaped(url))' is not a host and port", hint: hint)
        }
    }

    private func invalid(_ message: String, hint: String? = nil) -> AppStoreAPIError {
        Self.invalid(message, hint: hint)
    }

    private static func invalid(_ message: String, hint: String? = nil) -> AppStoreAPIError {
        AppStoreAPIError(.invalidConfiguration, message, hint: hint)
    }
}
