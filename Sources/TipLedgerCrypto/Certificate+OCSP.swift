// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

extension Certificate {
    /// The OCSP responder URLs of the certificate's Authority Information Access extension, in
    /// order; empty when it names none (`X509_get1_ocsp`).
    public var ocspURLs: [String] {
        // get1: the stack and its strings are copies this call owns; X509_email_free frees both.
        guard let urls = X509_get1_ocsp(x509) else { return [] }
        defer { X509_email_free(urls) }
        return (0..<max(0, OPENSSL_sk_num(urls))).compactMap { index in
            OPENSSL_sk_value(urls, index).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
        }
    }
}
