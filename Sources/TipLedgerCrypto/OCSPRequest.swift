// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// An OCSP request for one certificate (RFC 6960), built by OpenSSL with a fresh nonce, and the
/// check of the response to it: OpenSSL verifies the signature and the signer, this type the
/// nonce, the certificate's entry and the validity period at a given time.
///
/// Immutable after building, so it may be read from many threads; each check of a response
/// makes its own OpenSSL objects.
public final class OCSPRequest: @unchecked Sendable {
    /// The `OCSP_REQUEST`, owned by this object.
    private let request: OpaquePointer
    /// The `OCSP_CERTID` of the certificate, owned by this object (the request holds its own).
    private let certificateID: OpaquePointer
    /// The request's DER encoding, the body of an HTTP POST (`application/ocsp-request`).
    public let derEncoded: [UInt8]

    /// A request for `certificate`'s status from the responder of `issuer`, the certificate that
    /// signed it.
    public init(for certificate: Certificate, issuedBy issuer: Certificate) throws(CryptoError) {
        // A nil digest is SHA-1, the one RFC 5019 lightweight responders must accept; the
        // CertID's hashes identify the issuer, they sign nothing.
        guard let identifier = OCSP_cert_to_id(nil, certificate.x509, issuer.x509) else {
            throw CryptoError.openSSL("build OCSP certificate id")
        }
        guard let request = OCSP_REQUEST_new() else {
            OCSP_CERTID_free(identifier)
            throw CryptoError.openSSL("create OCSP request")
        }
        // OCSP_request_add0_id takes the id it is given on success, so it gets a copy and this
        // object keeps the original for matching the response.
        guard let copy = OCSP_CERTID_dup(identifier) else {
            OCSP_CERTID_free(identifier)
            OCSP_REQUEST_free(request)
            throw CryptoError.openSSL("copy OCSP certificate id")
        }
        guard OCSP_request_add0_id(request, copy) != nil else {
            OCSP_CERTID_free(copy)
            OCSP_CERTID_free(identifier)
            OCSP_REQUEST_free(request)
            throw CryptoError.openSSL("add OCSP certificate id")
        }
        // A nil value with length -1: OpenSSL draws 16 random bytes (`OCSP_request_add1_nonce`).
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = OCSP_request_add1_nonce(request, nil, -1) == 1 ? i2d_OCSP_REQUEST(request, &out) : -1
        guard length > 0, let out else {
            OCSP_CERTID_free(identifier)
            OCSP_REQUEST_free(request)
            throw CryptoError.openSSL("encode OCSP request")
        }
        defer { tl_openssl_free(out) }
        self.request = request
        self.certificateID = identifier
        self.derEncoded = Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    deinit {
        OCSP_CERTID_free(certificateID)
        OCSP_REQUEST_free(request)
    }

    /// What `response` (DER) says of the certificate, once shown to be trustworthy at `seconds`
    /// (since 1970): a successful basic response; signed by the issuer, or by a responder whose
    /// certificate the issuer signed for OCSP signing, its path to one of `roots` valid at that
    /// time (`OCSP_basic_verify`, with `intermediates` to build it); with the request's nonce
    /// unless the responder sends none (RFC 5019 responders answer from precomputed responses);
    /// and current: `thisUpdate` no later than `seconds` plus `skew`, `nextUpdate` no earlier
    /// than `seconds` minus `skew`, or without a `nextUpdate`, `thisUpdate` no older than
    /// `maximumAge`.
    ///
    /// The validity is compared here rather than by `OCSP_check_validity`, which reads the
    /// system clock: the time is a parameter, as for the chain.
    public func check(
        response der: [UInt8], roots: [Certificate], intermediates: [Certificate], atSeconds seconds: Int64,
        skew: Int64, maximumAge: Int64
    ) -> Result<OCSPAnswer, OCSPFailure> {
        defer { CryptoError.clearQueue() }
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_OCSP_RESPONSE(nil, &cursor, buffer.count)
        }
        guard let response = parsed else { return .failure(OCSPFailure("the answer is not an OCSP response")) }
        defer { OCSP_RESPONSE_free(response) }
        let status = OCSP_response_status(response)
        guard status == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            let name = OCSP_response_status_str(Int(status)).map { String(cString: $0) } ?? "status \(status)"
            return .failure(OCSPFailure("the responder declined: \(name)"))
        }
        // get1: a new basic response this call owns.
        guard let basic = OCSP_response_get1_basic(response) else {
            return .failure(OCSPFailure("the response is not a basic OCSP response"))
        }
        defer { OCSP_BASICRESP_free(basic) }
        guard verifySigner(basic, roots: roots, intermediates: intermediates, atSeconds: seconds) else {
            let reason = CryptoError.openSSL("verify").reason
            return .failure(
                OCSPFailure(
                    "the response is not signed by the issuer or its delegated responder"
                        + (reason.isEmpty ? "" : " (\(reason))")))
        }
        // 1: both carry the same nonce; -1: only the request does (a responder without nonces);
        // 2: neither (impossible here); 3: only the response; 0: they differ, a replay.
        if OCSP_check_nonce(request, basic) == 0 {
            return .failure(OCSPFailure("the response's nonce is not the request's"))
        }
        return entry(in: basic, atSeconds: seconds, skew: skew, maximumAge: maximumAge)
    }

    /// `OCSP_basic_verify` against a store of `roots` whose validation time is `seconds`.
    private func verifySigner(
        _ basic: OpaquePointer, roots: [Certificate], intermediates: [Certificate], atSeconds seconds: Int64
    ) -> Bool {
        guard let store = X509_STORE_new() else { return false }
        defer { X509_STORE_free(store) }
        // X509_STORE_add_cert takes its own reference to each root.
        for root in roots where X509_STORE_add_cert(store, root.x509) != 1 { return false }
        // get0: the store's own parameters, which every X509_STORE_CTX made from it inherits.
        guard let parameters = X509_STORE_get0_param(store) else { return false }
        X509_VERIFY_PARAM_set_time(parameters, time_t(seconds))
        guard let untrusted = OPENSSL_sk_new_null() else { return false }
        // The stack borrows the certificates (no reference taken), so it is freed without them.
        defer { OPENSSL_sk_free(untrusted) }
        for certificate in intermediates where OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.x509)) <= 0 {
            return false
        }
        return OCSP_basic_verify(basic, untrusted, store, 0) == 1
    }

    /// The certificate's entry in `basic`, checked to be current at `seconds`.
    private func entry(in basic: OpaquePointer, atSeconds seconds: Int64, skew: Int64, maximumAge: Int64) -> Result<
        OCSPAnswer, OCSPFailure
    > {
        var status: Int32 = -1
        var reason: Int32 = -1
        // get0-style: the times point into `basic` and live as long as it.
        var revokedAt: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        guard OCSP_resp_find_status(basic, certificateID, &status, &reason, &revokedAt, &thisUpdate, &nextUpdate) == 1,
            let thisUpdate
        else {
            return .failure(OCSPFailure("the response does not speak of the certificate asked about"))
        }
        let issued = Certificate.seconds(thisUpdate)
        let expires = nextUpdate.map { Certificate.seconds($0) }
        if issued > seconds + skew {
            return .failure(OCSPFailure("the response is not yet valid (thisUpdate is in the future)"))
        }
        if let expires {
            guard expires >= issued else {
                return .failure(OCSPFailure("the response's nextUpdate precedes its thisUpdate"))
            }
            guard expires >= seconds - skew else {
                return .failure(OCSPFailure("the response is stale (nextUpdate has passed)"))
            }
        } else if seconds - issued > maximumAge {
            return .failure(OCSPFailure("the response is stale (no nextUpdate, thisUpdate too old)"))
        }
        let answer: OCSPAnswer.Status
        switch status {
        case V_OCSP_CERTSTATUS_GOOD: answer = .good
        case V_OCSP_CERTSTATUS_REVOKED:
            answer = .revoked(revokedAt: revokedAt.map { Certificate.seconds($0) } ?? 0, reason: reason)
        default: answer = .unknown
        }
        return .success(OCSPAnswer(status: answer, thisUpdate: issued, nextUpdate: expires))
    }
}
