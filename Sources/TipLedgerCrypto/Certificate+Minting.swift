// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

extension Certificate {
    /// Mints a version 3 certificate for `subjectKey` as `template` says, signed with ECDSA and
    /// SHA-256 by `issuer` (a certificate and its key), or self-signed when `issuer` is nil.
    package static func mint(
        _ template: CertificateTemplate, subjectKey: PrivateKey,
        issuer: (certificate: Certificate, key: PrivateKey)?
    ) throws(CryptoError) -> Certificate {
        guard let x509 = X509_new() else { throw CryptoError.openSSL("create certificate") }
        do {
            try fill(x509, template: template, subjectKey: subjectKey, issuer: issuer)
        } catch {
            X509_free(x509)
            throw error
        }
        return try Certificate(takingOwnershipOf: x509)
    }

    private static func fill(
        _ x509: OpaquePointer, template: CertificateTemplate, subjectKey: PrivateKey,
        issuer: (certificate: Certificate, key: PrivateKey)?
    ) throws(CryptoError) {
        guard X509_set_version(x509, Int(X509_VERSION_3)) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(template.serialNumber)) == 1,
            ASN1_TIME_set(X509_getm_notBefore(x509), time_t(template.notBefore)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), time_t(template.notAfter)) != nil,
            // X509_set_pubkey takes its own reference to the key.
            X509_set_pubkey(x509, subjectKey.pkey) == 1
        else { throw CryptoError.openSSL("fill certificate") }

        guard let name = X509_NAME_new() else { throw CryptoError.openSSL("create name") }
        defer { X509_NAME_free(name) }
        for (attribute, value) in template.subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, attribute, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1
            else { throw CryptoError.openSSL("set name attribute \(attribute)") }
        }
        // X509_set_subject_name / X509_set_issuer_name copy the name.
        guard X509_set_subject_name(x509, name) == 1 else { throw CryptoError.openSSL("set subject") }
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.x509) } ?? name
        guard X509_set_issuer_name(x509, issuerName) == 1 else { throw CryptoError.openSSL("set issuer") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate.x509 ?? x509, x509, nil, nil, 0)
        if template.writesBasicConstraints {
            var value = template.isCA ? "critical,CA:TRUE" : "critical,CA:FALSE"
            if let pathLength = template.pathLength { value += ",pathlen:\(pathLength)" }
            try addExtension(x509, &context, nid: NID_basic_constraints, value: value)
        }
        if let keyUsage = template.keyUsage {
            try addExtension(x509, &context, nid: NID_key_usage, value: keyUsage)
        }
        if let usage = template.extendedKeyUsage {
            try addExtension(x509, &context, nid: NID_ext_key_usage, value: usage)
        }
        if template.writesKeyIdentifiers {
            try addExtension(x509, &context, nid: NID_subject_key_identifier, value: "hash")
            try addExtension(x509, &context, nid: NID_authority_key_identifier, value: "keyid:always")
        }
        if let names = template.subjectAlternativeNames {
            try addExtension(x509, &context, nid: NID_subject_alt_name, value: names)
        }
        if let url = template.ocspURL {
            try addExtension(x509, &context, nid: NID_info_access, value: "OCSP;URI:\(url)")
        }
        for oid in template.markerOIDs {
            try addMarker(x509, oid: oid)
        }

        let signer = issuer?.key ?? subjectKey
        guard X509_sign(x509, signer.pkey, Digests.sha256.md) > 0 else {
            throw CryptoError.openSSL("sign certificate")
        }
    }

    private static func addExtension(
        _ x509: OpaquePointer, _ context: inout X509V3_CTX, nid: Int32, value: String
    ) throws(CryptoError) {
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw CryptoError.openSSL("build extension \(value)")
        }
        defer { X509_EXTENSION_free(ext) }
        // X509_add_ext copies the extension.
        guard X509_add_ext(x509, ext, -1) == 1 else { throw CryptoError.openSSL("add extension") }
    }

    /// Adds a non-critical extension `oid` whose value is DER NULL (`05 00`), like Apple's markers.
    private static func addMarker(_ x509: OpaquePointer, oid: String) throws(CryptoError) {
        guard let object = OBJ_txt2obj(oid, 1) else { throw CryptoError.openSSL("parse OID \(oid)") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw CryptoError.openSSL("create value") }
        defer { ASN1_OCTET_STRING_free(value) }
        let null: [UInt8] = [0x05, 0x00]
        guard ASN1_OCTET_STRING_set(value, null, Int32(null.count)) == 1,
            let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value)
        else { throw CryptoError.openSSL("build extension \(oid)") }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else { throw CryptoError.openSSL("add extension \(oid)") }
    }
}
