// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// An X.509 certificate held by OpenSSL.
///
/// Immutable after parsing, so it may be read from many threads.
public final class Certificate: @unchecked Sendable {
    let x509: OpaquePointer
    /// The exact DER bytes the certificate was parsed from (or encoded to, when minted).
    public let derEncoded: [UInt8]

    /// Wraps `x509`; this object frees it.
    init(takingOwnershipOf x509: OpaquePointer) throws(CryptoError) {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else {
            X509_free(x509)
            throw CryptoError.openSSL("encode certificate")
        }
        defer { tl_openssl_free(out) }
        self.x509 = x509
        self.derEncoded = Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    deinit {
        X509_free(x509)
    }

    /// Parses one DER certificate; the input must hold exactly one, with no trailing bytes.
    public convenience init(derEncoded der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(x509)
                return nil
            }
            return x509
        }
        guard let parsed else {
            let error = CryptoError.openSSL("parse DER certificate")
            throw error.reason.isEmpty
                ? CryptoError(operation: "parse DER certificate", reason: "trailing bytes") : error
        }
        try self.init(takingOwnershipOf: parsed)
    }

    /// Every certificate in a file: PEM blocks (text before, between and after them is ignored,
    /// as in an `openssl x509 -text` dump), or else one DER certificate.
    public static func parseAll(fileContents bytes: [UInt8]) throws(CryptoError) -> [Certificate] {
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        guard bytes.firstRange(of: marker) != nil else {
            return [try Certificate(derEncoded: bytes)]
        }
        var parsed: [OpaquePointer] = []
        _ = withMemoryBIO(reading: bytes) { bio -> Bool? in
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) { parsed.append(x509) }
            return true
        }
        // Reading stops with a "no start line" error at the end of the input; that is expected.
        CryptoError.clearQueue()
        var certificates: [Certificate] = []
        for (index, x509) in parsed.enumerated() {
            do {
                certificates.append(try Certificate(takingOwnershipOf: x509))
            } catch {
                // The failed initializer freed its own pointer; free the ones not yet wrapped.
                parsed[(index + 1)...].forEach { X509_free($0) }
                throw error
            }
        }
        guard !certificates.isEmpty else {
            throw CryptoError(operation: "parse PEM certificate", reason: "no readable certificate")
        }
        return certificates
    }

    /// The certificate as PEM text.
    public var pemEncoded: String {
        let text = writingMemoryBIO { PEM_write_bio_X509($0, x509) == 1 }
        return text.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// SHA-256 of the DER encoding, as certificate fingerprints are usually given.
    public var sha256Fingerprint: [UInt8] { SHA256.hash(derEncoded) }

    /// The subject in RFC 2253 form, e.g. `CN=Example,O=Example Inc.,C=US`.
    public var subject: String { name(X509_get_subject_name(x509)) }

    /// The issuer in RFC 2253 form.
    public var issuer: String { name(X509_get_issuer_name(x509)) }

    private func name(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let text = writingMemoryBIO { bio in
            X509_NAME_print_ex(bio, name, 0, tl_xn_flag_rfc2253()) >= 0
        }
        return text.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Start of the validity period, in seconds since 1970.
    public var notBefore: Int64 { Certificate.seconds(X509_get0_notBefore(x509)) }

    /// End of the validity period, in seconds since 1970.
    public var notAfter: Int64 { Certificate.seconds(X509_get0_notAfter(x509)) }

    /// Whether OpenSSL considers the certificate valid at `seconds` (since 1970).
    ///
    /// Mirrors `X509_cmp_time` as the chain check uses it: valid when notBefore ≤ t and t < notAfter
    /// ("returns -1 if asn1_time is earlier than, or equal to, cmp_time").
    public func isValid(atSeconds seconds: Int64) -> Bool {
        var time = time_t(seconds)
        return X509_cmp_time(X509_get0_notBefore(x509), &time) <= 0
            && X509_cmp_time(X509_get0_notAfter(x509), &time) > 0
    }

    /// An ASN.1 time in seconds since 1970; 0 when OpenSSL cannot read it.
    static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        guard let time else { return 0 }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return 0 }
        return Int64(timegm(&parts))
    }

    /// Whether the certificate is a CA by its basic constraints extension (`CA:TRUE`).
    ///
    /// Stricter than OpenSSL's `X509_check_ca`, which also treats version 1 self-signed
    /// certificates and bare `keyCertSign` key usage as CA markers.
    public var hasCABasicConstraint: Bool { X509_check_ca(x509) == 1 }

    /// Whether anything marks the certificate as able to issue others (`X509_check_ca` ≠ 0).
    public var mayActAsCA: Bool { X509_check_ca(x509) != 0 }

    /// Whether the certificate carries an extension with exactly this dotted OID.
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            CryptoError.clearQueue()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    /// The subject public key.
    public func publicKey() throws(CryptoError) -> PublicKey {
        // X509_get_pubkey returns a new reference that the caller must free.
        guard let key = X509_get_pubkey(x509) else { throw CryptoError.openSSL("read public key") }
        return PublicKey(takingOwnershipOf: key)
    }

    /// Whether the certificate is self-signed: its issuer is its subject and its own key
    /// verifies its signature (`X509_self_signed` with signature checking).
    public var isSelfSigned: Bool {
        let result = X509_self_signed(x509, 1)
        CryptoError.clearQueue()
        return result == 1
    }

    /// Whether `other` has exactly the same DER bytes.
    package func isByteEqual(to other: Certificate) -> Bool { derEncoded == other.derEncoded }
}
