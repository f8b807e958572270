// SPDX-License-Identifier: GPL-3.0-or-later
internal import CCurl
internal import Synchronization

/// HTTPS exchanges on libcurl, one at a time per handle, with the certificate always verified.
///
/// Every exchange is HTTPS only (no other protocol, no redirect followed), TLS 1.2 or later, the
/// peer's certificate and host name checked against the system's store plus the extra CAs. A
/// transport made for answers that carry their own signature (OCSP responses, RFC 5019 serves
/// them over plain HTTP) also speaks plain HTTP (`allowsPlainHTTP`).
/// The connect and whole-exchange timeouts, and the bound on the answer's body, come from the
/// configuration; a body past the bound ends the transfer as it arrives. Idle handles are kept
/// for reuse, so consecutive requests share a connection.
package final class HTTPSTransport: Sendable {
    /// One request as sent.
    package struct Request {
        let method: String
        let url: String
        /// Header lines, `Name: value`.
        let headers: [String]
        /// The body, sent with `Content-Type: contentType`; nil sends none (a POST then says
        /// `Content-Length: 0`).
        let body: [UInt8]?
        var contentType = "application/json"

        package init(method: String, url: String, headers: [String], body: [UInt8]?, contentType: String) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.contentType = contentType
        }

        init(method: String, url: String, headers: [String], body: [UInt8]?) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// One answer as received.
    package struct Response {
        package let status: Int
        package let body: [UInt8]
        /// The `Retry-After` field, when the answer has one.
        let retryAfter: String?
    }

    private let userAgent: String
    private let connectTimeoutMilliseconds: Int
    private let requestTimeoutMilliseconds: Int
    private let maximumResponseBytes: Int
    /// The protocols libcurl may use: `https`, or `http,https`.
    private let protocols: String
    /// The PEM the handshake trusts instead of the default bundle file: that bundle followed by
    /// the extra CAs; nil when there are no extra CAs (libcurl's defaults apply).
    let certificateAuthorities: [UInt8]?
    /// Handles between transfers.
    private let idle = Mutex<[CurlEasy]>([])

    /// Idle handles kept; more concurrent transfers than this make and free handles of their own.
    private static let idleLimit = 4

    /// A transport for the App Store Server API, as `configuration` says.
    convenience init(configuration: AppStoreAPIConfiguration, extraCertificateAuthorities: [UInt8]?) {
        self.init(
            userAgent: configuration.userAgent, connectTimeout: configuration.connectTimeout,
            requestTimeout: configuration.requestTimeout,
            maximumResponseBytes: configuration.maximumResponseBytes, allowsPlainHTTP: false,
            extraCertificateAuthorities: extraCertificateAuthorities)
    }

    /// - Parameters:
    ///   - userAgent: the `User-Agent` sent, e.g. `tipledger/1.4.0`.
    ///   - connectTimeout: the longest a connection may take to set up.
    ///   - requestTimeout: the longest a whole exchange may take.
    ///   - maximumResponseBytes: the bound on an answer's body.
    ///   - allowsPlainHTTP: whether `http://` URLs may be asked as well as `https://` ones.
    ///   - extraCertificateAuthorities: PEM certificates to trust besides the system's.
    package init(
        userAgent: String, connectTimeout: Duration, requestTimeout: Duration, maximumResponseBytes: Int,
        allowsPlainHTTP: Bool,
        extraCertificateAuthorities: [UInt8]?
    ) {
        self.userAgent = userAgent
        connectTimeoutMilliseconds = Self.milliseconds(connectTimeout)
        requestTimeoutMilliseconds = Self.milliseconds(requestTimeout)
        self.maximumResponseBytes = maximumResponseBytes
        protocols = allowsPlainHTTP ? "http,https" : "https"
        certificateAuthorities = extraCertificateAuthorities.map { extra in
            // A CA blob replaces libcurl's default bundle file (its CA directory still applies),
            // so the blob starts with that bundle to keep every system CA trusted.
            var bundle: [UInt8] = []
            if let path = CurlEasy.defaultCertificateAuthorityBundle,
                case .success(let bytes) = ConfigurationFile.read(path, limit: 16 << 20)
            {
                bundle = bytes + [UInt8(ascii: "\n")]
            }
            return bundle + extra
        }
    }

    /// `duration` in whole milliseconds for libcurl, at most a day.
    private static func milliseconds(_ duration: Duration) -> Int {
        Int(min(duration.milliseconds, 86_400_000).rounded(.up))
    }

    /// Sends `request` and returns the answer, whatever its status.
    ///
    /// - Throws: `timedOut`, `connectionFailed`, `tlsFailed`, `responseTooLarge` or
    ///   `transportFailed`, with libcurl's reason.
    package func perform(_ request: Request) throws(AppStoreAPIError) -> Response {
        guard let easy = idle.withLock({ $0.popLast() }) ?? CurlEasy() else {
            throw AppStoreAPIError(.transportFailed, "libcurl cannot make a handle")
        }
        defer {
            idle.withLock { handles in
                if handles.count < Self.idleLimit { handles.append(easy) }
            }
        }
        let sink = ResponseSink(limit: maximumResponseBytes)
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(headers) }
        for line in request.headers + bodyHeaders(request) {
            guard let appended = curl_slist_append(headers, line) else {
                throw AppStoreAPIError(.transportFailed, "libcurl cannot hold the request's headers")
            }
            headers = appended
        }

        let handle = easy.handle
        let (code, status, retryAfter) = errorText.withUnsafeMutableBufferPointer { errorText in
            withExtendedLifetime(sink) { () -> (CURLcode, Int, String?) in
                let setup = configure(handle, request, headers: headers, sink: sink, errorText: errorText.baseAddress!)
                let code = setup == CURLE_OK ? curl_easy_perform(handle) : setup
                var status = 0
                _ = tl_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                let retryAfter = header("Retry-After", of: handle)
                // Drops this transfer's options, among them the pointers to the error text and
                // the sink, which die here; connections and TLS sessions stay for the next.
                curl_easy_reset(handle)
                return (code, status, retryAfter)
            }
        }
        guard code == CURLE_OK else {
            let reason = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw failure(code, reason: reason, sink: sink)
        }
        return Response(status: status, body: sink.bytes, retryAfter: retryAfter)
    }

    /// The `Content-Type` for a body, or none; `Expect:` off, since a 100-continue round trip
    /// gains nothing for a small body.
    private func bodyHeaders(_ request: Request) -> [String] {
        // "Content-Type:" with no value removes the form type libcurl adds to a POST.
        [request.body == nil ? "Content-Type:" : "Content-Type: \(request.contentType)", "Expect:"]
    }

    /// Sets every option of one transfer; the first failure's code, or `CURLE_OK`.
    private func configure(
        _ handle: UnsafeMutableRawPointer, _ request: Request, headers: UnsafeMutablePointer<curl_slist>?,
        sink: ResponseSink, errorText: UnsafeMutablePointer<CChar>
    ) -> CURLcode {
        var codes: [CURLcode] = [
            // Signals cannot interrupt a transfer on one of many threads; timeouts work without.
            tl_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            tl_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorText),
            tl_curl_setopt_text(handle, CURLOPT_PROTOCOLS_STR, protocols),
            tl_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            tl_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
            tl_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
            tl_curl_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)),
            tl_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds),
            tl_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, requestTimeoutMilliseconds),
            tl_curl_setopt_text(handle, CURLOPT_USERAGENT, userAgent),
            tl_curl_setopt_text(handle, CURLOPT_URL, request.url),
            tl_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers),
            tl_curl_setopt_write_function(handle) { ResponseSink.write($0, $1, $2, $3) },
            tl_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque()),
        ]
        if let certificateAuthorities {
            var copy = certificateAuthorities
            let code = copy.withUnsafeMutableBytes { bytes in
                // CURL_BLOB_COPY: libcurl copies the bytes before the call returns.
                var blob = curl_blob(data: bytes.baseAddress, len: bytes.count, flags: UInt32(CURL_BLOB_COPY))
                return tl_curl_setopt_pointer(handle, CURLOPT_CAINFO_BLOB, &blob)
            }
            codes.append(code)
        }
        switch (request.method, request.body) {
        case ("GET", _):
            codes.append(tl_curl_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case (let method, let body):
            // POSTFIELDS sends a body (an empty one as Content-Length: 0); CUSTOMREQUEST names
            // the method when it is not POST. COPYPOSTFIELDS copies the bytes, so they need
            // not outlive this call; its size must be set first.
            var bytes = body ?? []
            codes.append(tl_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
            // A terminator past the counted bytes, so that even an empty body has an address.
            bytes.append(0)
            codes.append(
                bytes.withUnsafeMutableBytes { tl_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
            if method != "POST" { codes.append(tl_curl_setopt_text(handle, CURLOPT_CUSTOMREQUEST, method)) }
        }
        return codes.first { $0 != CURLE_OK } ?? CURLE_OK
    }

    /// The first value of the answer's header field `name`, or nil.
    private func header(_ name: String, of handle: UnsafeMutableRawPointer) -> String? {
        var field: UnsafeMutablePointer<curl_header>? = nil
        // Origin CURLH_HEADER: the answer's own fields; request -1: the last request's answer.
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &field) == CURLHE_OK,
            let value = field?.pointee.value
        else { return nil }
        return String(cString: value)
    }

    private func failure(_ code: CURLcode, reason: String, sink: ResponseSink) -> AppStoreAPIError {
        let detail = reason.isEmpty ? String(cString: curl_easy_strerror(code)) : reason
        switch code {
        case CURLE_WRITE_ERROR where sink.overflowed:
            return AppStoreAPIError(
                .responseTooLarge, "the answer is larger than the \(maximumResponseBytes) bytes read")
        case CURLE_OPERATION_TIMEDOUT:
            return AppStoreAPIError(.timedOut, "no answer in time: \(detail)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
            CURLE_PARTIAL_FILE:
            return AppStoreAPIError(.connectionFailed, "the connection failed: \(detail)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER:
            return AppStoreAPIError(
                .tlsFailed, "the TLS handshake failed: \(detail)",
                hint: "a test server's certificate authority is trusted with --api-ca FILE (TIPLEDGER_API_CA)")
        default:
            return AppStoreAPIError(.transportFailed, "libcurl failed: \(detail)")
        }
    }
}

/// Collects an answer's body for libcurl's write callback, up to a bound.
private final class ResponseSink {
    let limit: Int
    var bytes: [UInt8] = []
    /// Set when the body went past `limit` and the transfer was ended.
    var overflowed = false

    init(limit: Int) {
        self.limit = limit
    }

    /// `CURLOPT_WRITEFUNCTION`: appends the data, or returns 0 (ending the transfer with
    /// `CURLE_WRITE_ERROR`) when the body would pass the bound.
    static func write(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int {
        guard let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.bytes.count + length <= sink.limit else {
            sink.overflowed = true
            return 0
        }
        if let data, length > 0 {
            data.withMemoryRebound(to: UInt8.self, capacity: length) {
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
            }
        }
        return length
    }
}
