// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

/// A client of the App Store Server API for one app in one environment, over HTTPS on libcurl.
///
/// Each call blocks the calling thread until Apple's answer is decoded or the call has failed;
/// calls may run on several threads at once. Every request carries a new bearer token. Calls
/// keep under Apple's rate for their endpoint, waiting when needed. A retryable failure (a 5xx,
/// an error Apple documents as retryable, a timeout or a broken connection) is tried again
/// after an exponential backoff with jitter, up to `maximumAttempts` in all; a 429 waits until
/// Apple's `Retry-After` (an absolute time in milliseconds) when that is within
/// `maximumRetryAfter`, and fails with `rateLimited` otherwise. A 401 fails at once with
/// `unauthorized`. See <https://developer.apple.com/documentation/appstoreserverapi>.
public final class AppStoreServerAPIClient: Sendable {
    public let configuration: AppStoreAPIConfiguration
    let credentials: AppStoreAPICredentials
    let clock: APIClock
    let transport: HTTPSTransport
    let limiter: RateLimiter
    private let baseURL: String
    /// Told of every exchange, retries included, on the calling thread.
    private let observer: @Sendable (APIExchange) -> Void

    /// The PEM of the extra certificate authorities is at most this large.
    static let maximumCertificateAuthorityFileBytes = 1 << 20

    /// Checks `configuration` and reads its extra CA file; sends nothing.
    ///
    /// - Parameter observer: told of every exchange (each attempt of a call) once it ended, on
    ///   the calling thread: for metrics, and to say why a call waits.
    /// - Throws: `invalidConfiguration` when a setting cannot work or the CA file cannot be read
    ///   or holds no certificate.
    public init(
        credentials: AppStoreAPICredentials, configuration: AppStoreAPIConfiguration, clock: APIClock = .system,
        observer: @escaping @Sendable (APIExchange) -> Void = { _ in }
    ) throws(AppStoreAPIError) {
        try configuration.validate()
        var extra: [UInt8]? = nil
        if let path = configuration.extraCertificateAuthorityFile {
            extra = try Self.certificateAuthorities(path)
        }
        self.configuration = configuration
        self.credentials = credentials
        self.clock = clock
        self.baseURL = configuration.resolvedBaseURL
        self.transport = HTTPSTransport(configuration: configuration, extraCertificateAuthorities: extra)
        self.limiter = RateLimiter(environment: configuration.environment)
        self.observer = observer
    }

    /// The PEM file at `path`, once it is known to hold certificates.
    private static func certificateAuthorities(_ path: String) throws(AppStoreAPIError) -> [UInt8] {
        let hint = "give a PEM file of the test server's certificate authority"
        switch ConfigurationFile.read(path, limit: maximumCertificateAuthorityFileBytes) {
        case .failure(let failure):
            throw AppStoreAPIError(.invalidConfiguration, "cannot read the API CA file \(path): \(failure.reason)")
        case .success(let bytes):
            // libcurl reads the CAs as PEM, so a DER file, which `parseAll` also reads, is refused.
            let isPEM = bytes.firstRange(of: Array("-----BEGIN CERTIFICATE-----".utf8)) != nil
            guard isPEM, let certificates = try? Certificate.parseAll(fileContents: bytes), !certificates.isEmpty else {
                throw AppStoreAPIError(
                    .invalidConfiguration, "the API CA file \(path) holds no PEM certificate", hint: hint)
            }
            return bytes
        }
    }

    /// Sends one request to `endpoint`, with retries, and returns the body of its 2xx answer.
    ///
    /// - Parameters:
    ///   - path: the path after the base URL, its parameters already checked.
    ///   - query: parameters, percent-encoded here.
    ///   - body: a JSON body, or nil for none.
    func send(_ endpoint: Endpoint, path: String, query: [(String, String)] = [], body: [UInt8]? = nil)
        throws(AppStoreAPIError) -> [UInt8]
    {
        try exchange(endpoint, path: path, query: query, body: body).body
    }

    /// `send`, returning the 2xx status of Apple's answer with its body.
    func exchange(_ endpoint: Endpoint, path: String, query: [(String, String)] = [], body: [UInt8]? = nil)
        throws(AppStoreAPIError) -> (status: Int, body: [UInt8])
    {
        let url = baseURL + path + Self.queryString(query)
        var attempt = 1
        while true {
            let wait = limiter.reserve(endpoint, at: clock.now())
            if wait > .zero { clock.sleep(for: wait) }
            let failure: AppStoreAPIError
            do {
                let response = try transport.perform(
                    HTTPSTransport.Request(
                        method: endpoint.method, url: url, headers: try headers(), body: body))
                if (200..<300).contains(response.status) {
                    observe(endpoint, status: response.status)
                    return (response.status, response.body)
                }
                failure = Self.failure(of: response, endpoint: endpoint, now: clock.now())
                observe(endpoint, status: response.status, retryAt: failure.retryAt)
            } catch {
                failure = AppStoreAPIError(
                    error.code, "\(endpoint.name): \(error.message)", hint: error.hint, status: error.status,
                    apple: error.apple, retryAt: error.retryAt)
                observe(endpoint, failure: error.code)
            }
            // A 429 holds its endpoint until Apple's time, for this call's next attempt and for
            // other calls alike; one whose time is beyond the bound is not retried.
            let retryAfter = waitableRetryTime(failure)
            if let retryAfter { limiter.hold(endpoint, until: retryAfter) }
            let retryable =
                failure.isRetryable || (failure.code == .rateLimited && (failure.retryAt == nil || retryAfter != nil))
            guard retryable, attempt < configuration.maximumAttempts else { throw failure.after(attempts: attempt) }
            // The limiter waits out a Retry-After still ahead before the next attempt; other
            // failures back off, and so does a 429 whose time has passed by this clock (Apple's
            // clock behind it), which would otherwise be followed at once by the next attempt.
            if retryAfter.map({ $0 <= clock.now() }) ?? true { clock.sleep(for: backoff(attempt)) }
            attempt += 1
        }
    }

    private func observe(
        _ endpoint: Endpoint, status: Int? = nil, failure: AppStoreAPIError.Code? = nil, retryAt: AppleDate? = nil
    ) {
        observer(
            APIExchange(
                endpoint: endpoint.label, endpointName: endpoint.name, status: status, failure: failure,
                retryAt: retryAt))
    }

    /// A 429's `Retry-After` when it is no further away than `maximumRetryAfter`, else nil.
    private func waitableRetryTime(_ failure: AppStoreAPIError) -> AppleDate? {
        guard failure.code == .rateLimited, let retryAt = failure.retryAt else { return nil }
        let wait = retryAt.milliseconds - clock.now().milliseconds
        return wait <= configuration.maximumRetryAfter.milliseconds ? retryAt : nil
    }

    /// The request's header lines, with a new bearer token.
    private func headers() throws(AppStoreAPIError) -> [String] {
        let token: String
        do {
            token = try credentials.bearerToken(issuedAt: clock.now())
        } catch {
            throw AppStoreAPIError(.invalidCredentials, "cannot sign the bearer token: \(error)")
        }
        return ["Authorization: Bearer \(token)", "Accept: application/json"]
    }

    /// The wait after the `attempt`th failure: `initialBackoff` doubled per earlier retry, at most
    /// `maximumBackoff`, drawn at random from the upper half so that clients spread out.
    func backoff(_ attempt: Int) -> Duration {
        let ceiling = min(
            configuration.maximumBackoff, configuration.initialBackoff * (1 << min(attempt - 1, 30)))
        return ceiling / 2 + ceiling / 2 * Double.random(in: 0...1)
    }

    /// The error for a non-2xx answer.
    static func failure(of response: HTTPSTransport.Response, endpoint: Endpoint, now: AppleDate) -> AppStoreAPIError {
        let apple = AppStoreErrorBody.decode(response.body)
        let answer = "\(endpoint.name): Apple answered \(response.status)" + (apple.map { " \($0)" } ?? "")
        switch response.status {
        case 401:
            return AppStoreAPIError(
                .unauthorized, answer,
                hint: "Apple accepts no token these credentials sign: check the API key file, key id, "
                    + "issuer id and bundle id",
                status: 401, apple: apple)
        case 429:
            let retryAt = response.retryAfter.flatMap { retryTime($0, now: now) }
            return AppStoreAPIError(
                .rateLimited, answer, hint: retryAt.map { "Apple allows the next request at \($0)" }, status: 429,
                apple: apple, retryAt: retryAt)
        default:
            return AppStoreAPIError(.appleError, answer, status: response.status, apple: apple)
        }
    }

    /// Apple's `Retry-After`: a UNIX time in milliseconds. A number below 10^11 is read as
    /// seconds from now, the HTTP meaning, in case a proxy rewrote it; nil for other text.
    static func retryTime(_ text: String, now: AppleDate) -> AppleDate? {
        // libcurl hands over the value without surrounding whitespace.
        guard (1...15).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int64(text)
        else { return nil }
        return number >= 100_000_000_000
            ? AppleDate(wholeMilliseconds: number) : AppleDate(wholeMilliseconds: now.wholeMilliseconds + number * 1000)
    }

    /// `?name=value&…`, percent-encoded, or empty for no parameters.
    static func queryString(_ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return "" }
        return "?" + items.map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// `text` with every byte but RFC 3986's unreserved characters percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }
}
