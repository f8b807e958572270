// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// The trusted root certificates, and chain validation against them with `X509_verify_cert`.
///
/// The OpenSSL store is built once and only read afterwards, so validation may run on many
/// threads at once (each call has its own `X509_STORE_CTX`).
public final class TrustStore: @unchecked Sendable {
    /// The trusted roots, in the order given.
    public let roots: [Certificate]
    private let store: OpaquePointer

    /// A store trusting exactly `roots`.
    public init(roots: [Certificate]) throws(CryptoError) {
        guard let store = X509_STORE_new() else { throw CryptoError.openSSL("create trust store") }
        for root in roots {
            // X509_STORE_add_cert takes its own reference; `root` keeps ours.
            guard X509_STORE_add_cert(store, root.x509) == 1 else {
                let error = CryptoError.openSSL("add trusted root \(root.subject)")
                X509_STORE_free(store)
                throw error
            }
        }
        self.roots = roots
        self.store = store
    }

    deinit {
        X509_STORE_free(store)
    }

    /// Whether a root with exactly these DER bytes is trusted.
    public func containsExactly(_ certificate: Certificate) -> Bool {
        roots.contains { $0.isByteEqual(to: certificate) }
    }

    /// Validates `leaf` → `intermediate` → a trusted root at `seconds` (since 1970).
    ///
    /// OpenSSL builds the path (the intermediate is offered as untrusted, so it never becomes an
    /// anchor), checks every signature, the issuers' CA constraints and each certificate's
    /// validity at the given time. The resulting chain must have exactly three certificates.
    public func validate(
        leaf: Certificate, intermediate: Certificate, atSeconds seconds: Int64
    ) -> Result<ValidatedChain, ChainValidationError> {
        guard let untrusted = OPENSSL_sk_new_null() else {
            return .failure(.untrusted("out of memory"))
        }
        // The stack borrows the intermediate (OPENSSL_sk_push takes no reference), so it is freed
        // with OPENSSL_sk_free, never with a pop_free that would release the certificate.
        defer { OPENSSL_sk_free(untrusted) }
        guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate.x509)) > 0,
            let context = X509_STORE_CTX_new()
        else {
            return .failure(.untrusted("out of memory"))
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1 else {
            return .failure(.untrusted(CryptoError.openSSL("start chain validation").description))
        }
        X509_STORE_CTX_set_time(context, 0, time_t(seconds))

        let verified = X509_verify_cert(context)
        if verified != 1 {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            CryptoError.clearQueue()
            let which = ["leaf", "intermediate", "root"][min(max(Int(depth), 0), 2)]
            switch code {
            case X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED:
                return .failure(.notValidAtTime("\(which) certificate: \(reason)"))
            default:
                return .failure(.untrusted("\(which) certificate: \(reason)"))
            }
        }
        // get0: the chain and its members belong to the context and are freed with it. They are
        // only compared here; what is returned is the caller's and the store's `Certificate`s.
        guard let chain = X509_STORE_CTX_get0_chain(context) else {
            return .failure(.untrusted("no chain was built"))
        }
        let count = Int(OPENSSL_sk_num(chain))
        guard count == 3 else {
            return .failure(
                .untrusted("the chain has \(count == 1 ? "1 certificate" : "\(count) certificates"), expected 3"))
        }
        guard let rootPointer = OPENSSL_sk_value(chain, 2),
            let root = roots.first(where: { UnsafeRawPointer($0.x509) == rootPointer })
                ?? matchingRoot(OpaquePointer(rootPointer))
        else {
            return .failure(.untrusted("the chain does not end at a configured root"))
        }
        return .success(ValidatedChain(leaf: leaf, intermediate: intermediate, root: root))
    }

    private func matchingRoot(_ x509: OpaquePointer) -> Certificate? {
        roots.first { X509_cmp($0.x509, x509) == 0 }
    }
}

/// A chain that `X509_verify_cert` accepted: leaf, intermediate, trusted root.
public struct ValidatedChain: Sendable {
    public let leaf: Certificate
    public let intermediate: Certificate
    public let root: Certificate
}

/// Why a chain did not validate.
public enum ChainValidationError: Error, Equatable, Sendable {
    /// No path to a trusted root, a bad signature in the chain, or a wrong chain shape.
    case untrusted(String)
    /// A certificate of the chain was expired or not yet valid at the validation time.
    case notValidAtTime(String)
}
