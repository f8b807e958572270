// SPDX-License-Identifier: GPL-3.0-or-later

/// The certificate chain and private key an HTTPS server presents, both PEM.
///
/// libmicrohttpd hands them to GnuTLS, which reads unencrypted PKCS#8 and SEC1 keys of any curve
/// it supports; a chain or key it cannot read makes `HTTPServer.init` fail.
public struct TLSIdentity: Sendable, Equatable {
    /// The server's certificate first, then the intermediates a client needs to reach its root.
    public var certificateChainPEM: String
    /// The private key of the first certificate, unencrypted.
    public var privateKeyPEM: String

    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }
}
