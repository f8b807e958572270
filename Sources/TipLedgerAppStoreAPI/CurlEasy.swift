// SPDX-License-Identifier: GPL-3.0-or-later
internal import CCurl

/// One libcurl easy handle, which keeps its connections (and TLS sessions) open between
/// transfers, so the pages of a sweep share one connection.
///
/// `@unchecked Sendable`: libcurl allows a handle on any thread but on one at a time
/// ("libcurl-thread(3)"); `HTTPSTransport` lends each handle to one transfer at a time.
final class CurlEasy: @unchecked Sendable {
    /// The `CURL *`, owned by this object.
    let handle: UnsafeMutableRawPointer

    /// A new handle, or nil when libcurl cannot make one (out of memory).
    init?() {
        _ = CurlEasy.globalInitialization
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// `curl_global_init`, once per process before the first handle: since 7.84 it is safe to
    /// call from any thread (Debian 12 has 7.88), and a `static let` runs it exactly once.
    private static let globalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// The CA bundle libcurl uses when told none (`CURLINFO_CAINFO`), or nil when it has none.
    static let defaultCertificateAuthorityBundle: String? = {
        guard let easy = CurlEasy() else { return nil }
        var path: UnsafePointer<CChar>? = nil
        guard tl_curl_getinfo_text(easy.handle, CURLINFO_CAINFO, &path) == CURLE_OK, let path else { return nil }
        return String(cString: path)
    }()
}
