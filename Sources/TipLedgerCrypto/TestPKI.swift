// SPDX-License-Identifier: GPL-3.0-or-later

/// A three-level test PKI shaped like the App Store's: a self-signed root, an intermediate CA
/// with Apple's intermediate marker OID and a leaf with the receipt-signing marker OID, all EC
/// P-256 unless told otherwise. Every name says TEST; none claims to be Apple.
///
/// Validity is relative to a reference time passed in, so fixtures minted from it never expire.
/// `Options` also mints the broken variants a verifier must reject.
public struct TestPKI: Sendable {
    public let root: Certificate
    public let rootKey: PrivateKey
    public let intermediate: Certificate
    public let intermediateKey: PrivateKey
    public let leaf: Certificate
    public let leafKey: PrivateKey

    /// How to mint the PKI; the defaults give a valid chain.
    public struct Options: Sendable {
        /// Start of every certificate's validity, seconds since 1970.
        public var notBefore: Int64
        /// End of the root's and intermediate's validity.
        public var notAfter: Int64
        /// End of the leaf's validity; defaults to `notAfter`.
        public var leafNotAfter: Int64?
        /// Start of the leaf's validity; defaults to `notBefore`.
        package var leafNotBefore: Int64?
        /// The intermediate's validity; defaults to `notBefore` and `notAfter`.
        package var intermediateNotBefore: Int64?
        package var intermediateNotAfter: Int64?
        /// The root's validity; defaults to `notBefore` and `notAfter`.
        package var rootNotBefore: Int64?
        package var rootNotAfter: Int64?
        package var leafHasMarker = true
        package var intermediateHasMarker = true
        package var intermediateIsCA = true
        package var leafIsCA = false
        package var leafCurve: PrivateKey.Curve = .p256
        /// The OCSP responders named in the leaf's and the intermediate's Authority Information
        /// Access; none by default.
        package var leafOCSPURL: String?
        package var intermediateOCSPURL: String?
        /// Put before every common name, e.g. "tipledger TEST".
        package var namePrefix = "tipledger TEST"

        /// Valid from `validFrom` to `validUntil` (seconds since 1970).
        public init(validFrom: Int64, validUntil: Int64) {
            self.notBefore = validFrom
            self.notAfter = validUntil
        }
    }

    public init(
        root: Certificate, rootKey: PrivateKey, intermediate: Certificate, intermediateKey: PrivateKey,
        leaf: Certificate, leafKey: PrivateKey
    ) {
        self.root = root
        self.rootKey = rootKey
        self.intermediate = intermediate
        self.intermediateKey = intermediateKey
        self.leaf = leaf
        self.leafKey = leafKey
    }

    /// Mints a fresh PKI with new keys.
    public static func mint(_ options: Options) throws(CryptoError) -> TestPKI {
        let rootKey = try PrivateKey.generate(curve: .p256)
        let root = try Certificate.mint(
            CertificateTemplate(
                subject: [("CN", "\(options.namePrefix) Root CA"), ("O", options.namePrefix)], serialNumber: 1,
                notBefore: options.rootNotBefore ?? options.notBefore,
                notAfter: options.rootNotAfter ?? options.notAfter,
                isCA: true,
                keyUsage: "critical,keyCertSign,cRLSign"),
            subjectKey: rootKey, issuer: nil)
        return try mint(options, under: root, rootKey: rootKey)
    }

    /// Mints a new intermediate and leaf issued by `root`, whatever it allows: for showing which
    /// roots a verifier refuses to let anchor a chain.
    package static func mint(_ options: Options, under root: Certificate, rootKey: PrivateKey) throws(CryptoError)
        -> TestPKI
    {
        let organization = ("O", options.namePrefix)
        let intermediateKey = try PrivateKey.generate(curve: .p256)
        var intermediateTemplate =
            CertificateTemplate(
                subject: [("CN", "\(options.namePrefix) Intermediate CA"), organization], serialNumber: 2,
                notBefore: options.intermediateNotBefore ?? options.notBefore,
                notAfter: options.intermediateNotAfter ?? options.notAfter, isCA: options.intermediateIsCA,
                pathLength: options.intermediateIsCA ? 0 : nil,
                keyUsage: options.intermediateIsCA ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature",
                markerOIDs: options.intermediateHasMarker ? [AppleMarkerOID.wwdrIntermediate] : [])
        intermediateTemplate.ocspURL = options.intermediateOCSPURL
        let intermediate = try Certificate.mint(
            intermediateTemplate, subjectKey: intermediateKey, issuer: (root, rootKey))
        let leafKey = try PrivateKey.generate(curve: options.leafCurve)
        var leafTemplate =
            CertificateTemplate(
                subject: [("CN", "\(options.namePrefix) Receipt Signing"), organization], serialNumber: 3,
                notBefore: options.leafNotBefore ?? options.notBefore,
                notAfter: options.leafNotAfter ?? options.notAfter, isCA: options.leafIsCA,
                keyUsage: options.leafIsCA ? "critical,keyCertSign,digitalSignature" : "critical,digitalSignature",
                markerOIDs: options.leafHasMarker ? [AppleMarkerOID.receiptSigningLeaf] : [])
        leafTemplate.ocspURL = options.leafOCSPURL
        let leaf = try Certificate.mint(leafTemplate, subjectKey: leafKey, issuer: (intermediate, intermediateKey))
        return TestPKI(
            root: root, rootKey: rootKey, intermediate: intermediate, intermediateKey: intermediateKey, leaf: leaf,
            leafKey: leafKey)
    }

    /// The `x5c` order: leaf, intermediate, root.
    public var chain: [Certificate] { [leaf, intermediate, root] }
}
