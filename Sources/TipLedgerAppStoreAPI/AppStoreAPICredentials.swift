// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

/// What the App Store Server API authenticates each request with: the In-App Purchase key from
/// App Store Connect (the `.p8` file), its key id, the issuer id and the app's bundle id.
///
/// Everything is read and checked when the value is made, so a missing or unusable setting is
/// an `invalidCredentials` error before any request. The key stays inside: `description` names
/// the key id, issuer and bundle id only. See
/// <https://developer.apple.com/documentation/appstoreserverapi/creating-api-keys-to-authorize-api-requests>.
public struct AppStoreAPICredentials: Sendable, CustomStringConvertible {
    /// The key's id in App Store Connect, e.g. `2X9R4HXF34`.
    public let keyId: String
    /// The issuer id in App Store Connect, a UUID.
    public let issuerId: String
    /// The bundle id every token names (`bid`): one app per client.
    public let bundleId: String
    /// Signs the bearer tokens with the key.
    let signer: JWSSigner

    /// A `.p8` file is about 250 bytes; anything far larger is not one.
    static let maximumKeyFileBytes = 16 * 1024

    /// Reads the key from `keyFile` and checks every setting; nil stands for one not configured.
    ///
    /// - Throws: `invalidCredentials` when the file is not given or cannot be read, is not one
    ///   unencrypted PKCS#8 PEM key (`-----BEGIN PRIVATE KEY-----`) on P-256, or when the key id,
    ///   the issuer id (a UUID) or the bundle id is missing or malformed.
    public init(keyFile: String?, keyId: String?, issuerId: String?, bundleId: String?) throws(AppStoreAPIError) {
        guard let keyFile, !keyFile.isEmpty else {
            throw Self.invalid(
                "no App Store Server API key is configured",
                hint: "pass --api-key FILE or set TIPLEDGER_API_KEY_FILE to the .p8 file from App Store Connect "
                    + "(Users and Access ▸ Integrations ▸ In-App Purchase)")
        }
        let bytes: [UInt8]
        switch ConfigurationFile.read(keyFile, limit: Self.maximumKeyFileBytes) {
        case .success(let read): bytes = read
        case .failure(let failure):
            throw Self.invalid(
                "cannot read the API key \(keyFile): \(failure.reason)",
                hint: "give the path of the .p8 file downloaded from App Store Connect")
        }
        try self.init(
            keyPEM: String(decoding: bytes, as: UTF8.self), source: keyFile, keyId: keyId, issuerId: issuerId,
            bundleId: bundleId)
    }

    /// Takes the key as PEM text and checks every setting, as `init(keyFile:...)` does.
    public init(keyPEM: String, keyId: String?, issuerId: String?, bundleId: String?) throws(AppStoreAPIError) {
        try self.init(keyPEM: keyPEM, source: "given", keyId: keyId, issuerId: issuerId, bundleId: bundleId)
    }

    private init(keyPEM: String, source: String, keyId: String?, issuerId: String?, bundleId: String?)
        throws(AppStoreAPIError)
    {
        let key = try Self.key(fromPEM: keyPEM, source: source)
        guard let keyId, !keyId.isEmpty else {
            throw Self.invalid(
                "no App Store Server API key id is configured",
                hint: "pass --api-key-id ID or set TIPLEDGER_API_KEY_ID (shown next to the key in App Store Connect)")
        }
        guard keyId.utf8.count <= 64, keyId.utf8.allSatisfy(Self.isLetterOrDigit) else {
            throw Self.invalid(
                "the API key id '\(PrintableText.escaped(String(keyId.prefix(64))))' is not a key id "
                    + "(letters and digits, such as 2X9R4HXF34)")
        }
        guard let issuerId, !issuerId.isEmpty else {
            throw Self.invalid(
                "no App Store Server API issuer id is configured",
                hint:
                    "pass --api-issuer UUID or set TIPLEDGER_API_ISSUER_ID (shown above the keys in App Store Connect)")
        }
        guard PayloadReader.isUUID(issuerId) else {
            throw Self.invalid(
                "the API issuer id '\(PrintableText.escaped(String(issuerId.prefix(64))))' is not a UUID",
                hint: "copy the issuer id from App Store Connect (Users and Access ▸ Integrations ▸ In-App Purchase)")
        }
        guard let bundleId, !bundleId.isEmpty else {
            throw Self.invalid(
                "no bundle id is configured for the App Store Server API",
                hint: "pass --bundle-id com.example.app or set TIPLEDGER_BUNDLE_ID")
        }
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.signer = JWSSigner(key: key, chain: [])
    }

    /// The key in `pem`: exactly one PEM block, an unencrypted PKCS#8 key on P-256.
    private static func key(fromPEM pem: String, source: String) throws(AppStoreAPIError) -> PrivateKey {
        let hint = "use the .p8 file downloaded from App Store Connect as it is"
        // One block, and not an encrypted one: OpenSSL would ask for an encrypted key's password
        // on the terminal, and with several blocks would take the first key it finds.
        let blocks = pem.utf8.split(separator: UInt8(ascii: "\n")).filter { $0.starts(with: "-----BEGIN ".utf8) }
        guard blocks.count == 1, blocks[0].starts(with: "-----BEGIN PRIVATE KEY-----".utf8) else {
            throw invalid("the API key \(source) is not one PEM private key (-----BEGIN PRIVATE KEY-----)", hint: hint)
        }
        let key: PrivateKey
        let isP256: Bool
        do {
            key = try PrivateKey(pemEncoded: pem)
            isP256 = try key.publicKey.isP256
        } catch {
            throw invalid("the API key \(source) cannot be read: \(error)", hint: hint)
        }
        guard isP256 else {
            throw invalid("the API key \(source) is not an EC P-256 key, which App Store Connect issues", hint: hint)
        }
        return key
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
    }

    private static func invalid(_ message: String, hint: String? = nil) -> AppStoreAPIError {
        AppStoreAPIError(.invalidCredentials, message, hint: hint)
    }

    /// `key id 2X9R4HXF34, issuer 57246542-…, bundle id com.example`; never the key.
    public var description: String { "key id \(keyId), issuer \(issuerId), bundle id \(bundleId)" }
}
