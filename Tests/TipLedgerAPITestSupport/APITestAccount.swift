// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCrypto
internal import TipLedgerTestSupport

/// The App Store Server API credentials the tests sign with and the fake server expects.
///
/// The key is `testSigningKey.p8` from Apple's App Store Server Library tests (MIT, see
/// `Tests/Fixtures/apple-library/README.md`); the key id and issuer are the examples of Apple's
/// documentation, the bundle id that of Apple's library tests.
public struct APITestAccount: Sendable {
    /// The `.p8` file.
    public let keyFile: String
    public let keyId: String
    public let issuerId: String
    public let bundleId: String
    /// The public half of the key, which the fake checks signatures with.
    public let publicKey: PublicKey

    /// The account of Apple's test key.
    public static func apple() throws -> APITestAccount {
        let keyFile = Fixtures.path("apple-library/keys/testSigningKey.p8")
        let key = try PrivateKey(pemEncoded: try Fixtures.text("apple-library/keys/testSigningKey.p8"))
        return APITestAccount(
            keyFile: keyFile, keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
            bundleId: "com.example", publicKey: try key.publicKey)
    }
}
