// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerAppStoreAPI
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// The bearer token Apple requires, checked by the fake as Apple checks it, and the credential
/// and configuration errors raised before any request.
@Suite struct CredentialsTests {
    @Test func bearerTokenCarriesApplesHeaderAndClaims() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        #expect(harness.fake.rejections.isEmpty)
        let request = try #require(harness.fake.requests.first)
        #expect(
            request.tokenHeader == [
                "alg": .string("ES256"), "kid": .string(harness.account.keyId), "typ": .string("JWT"),
            ])
        let issuedAt = APIHarness.start.wholeSeconds
        #expect(
            request.claims == [
                "iss": .string(harness.account.issuerId), "iat": .integer(issuedAt), "exp": .integer(issuedAt + 300),
                "aud": .string("appstoreconnect-v1"), "bid": .string("com.example"),
            ])
    }

    @Test func eachRequestCarriesANewToken() throws {
        let harness = try APIHarness()
        harness.fake.reply(.fixture("transactionInfoResponse.json"), .fixture("transactionInfoResponse.json"))
        _ = try harness.client.transactionInfo(transactionId: "1234")
        harness.clock.advance(by: .seconds(90))
        _ = try harness.client.transactionInfo(transactionId: "1234")

        let tokens = harness.fake.requests.map { $0.headers["Authorization"] }
        #expect(tokens.count == 2 && tokens[0] != tokens[1])
        #expect(
            harness.fake.requests.map { $0.claims["iat"] } == [
                .integer(APIHarness.start.wholeSeconds), .integer(APIHarness.start.wholeSeconds + 90),
            ])
    }

    /// What the credentials get wrong, and what the fake then says.
    enum WrongCredential: String, CaseIterable {
        case key, keyId, issuer, bundle
    }

    @Test(arguments: WrongCredential.allCases)
    func credentialsAppleDoesNotKnowAreUnauthorizedAndNotRetried(_ wrong: WrongCredential) throws {
        let harness = try APIHarness()
        let account = harness.account
        let credentials = try AppStoreAPICredentials(
            keyPEM: wrong == .key
                ? try PrivateKey.generate(curve: .p256).pemEncoded
                : try Fixtures.text("apple-library/keys/testSigningKey.p8"),
            keyId: wrong == .keyId ? "OTHERKEY00" : account.keyId,
            issuerId: wrong == .issuer ? "00000000-0000-4000-8000-000000000000" : account.issuerId,
            bundleId: wrong == .bundle ? "com.example.other" : account.bundleId)
        let client = try harness.client(credentials: credentials) { _ in }

        let error = try #require(apiError { try client.transactionInfo(transactionId: "1234") })
        #expect(error.code == .unauthorized && error.code.isConfiguration)
        #expect(error.status == 401)
        #expect(error.hint?.contains("key id, issuer id and bundle id") == true)
        #expect(harness.fake.arrivals == 1, "a 401 is not retried")
        #expect(harness.fake.rejections.count == 1)
        #expect(harness.fake.requests.isEmpty)
    }

    /// A credential setting that cannot work, with what the error must say.
    struct BadCredentials: CustomTestStringConvertible, Sendable {
        let name: String
        let message: String
        let hasHint: Bool
        let make: @Sendable (APITestAccount, TemporaryDirectory) throws -> AppStoreAPICredentials

        var testDescription: String { name }
    }

    static let badCredentials: [BadCredentials] = [
        BadCredentials(name: "no key file", message: "no App Store Server API key is configured", hasHint: true) {
            account, _ in
            try AppStoreAPICredentials(keyFile: nil, keyId: account.keyId, issuerId: account.issuerId, bundleId: "b")
        },
        BadCredentials(name: "a key file that is not there", message: "No such file or directory", hasHint: true) {
            account, directory in
            try AppStoreAPICredentials(
                keyFile: directory.file("missing.p8"), keyId: account.keyId, issuerId: account.issuerId,
                bundleId: "b")
        },
        BadCredentials(name: "a directory as key file", message: "it is a directory", hasHint: true) {
            account, directory in
            try AppStoreAPICredentials(
                keyFile: directory.path, keyId: account.keyId, issuerId: account.issuerId, bundleId: "b")
        },
        BadCredentials(name: "a certificate as key", message: "is not one PEM private key", hasHint: true) {
            account, directory in
            let file = directory.file("certificate.pem")
            try Data(try TestTLSAuthority().certificateAuthorityPEM.utf8).write(to: URL(fileURLWithPath: file))
            return try AppStoreAPICredentials(
                keyFile: file, keyId: account.keyId, issuerId: account.issuerId, bundleId: "b")
        },
        BadCredentials(name: "a P-384 key", message: "is not an EC P-256 key", hasHint: true) { account, directory in
            let file = directory.file("p384.p8")
            try Data(try PrivateKey.generate(curve: .p384).pemEncoded.utf8).write(to: URL(fileURLWithPath: file))
            return try AppStoreAPICredentials(
                keyFile: file, keyId: account.keyId, issuerId: account.issuerId, bundleId: "b")
        },
        BadCredentials(name: "no key id", message: "no App Store Server API key id", hasHint: true) { account, _ in
            try AppStoreAPICredentials(keyFile: account.keyFile, keyId: "", issuerId: account.issuerId, bundleId: "b")
        },
        BadCredentials(name: "a key id with a space", message: "is not a key id", hasHint: false) { account, _ in
            try AppStoreAPICredentials(
                keyFile: account.keyFile, keyId: "2X9R4 HXF34", issuerId: account.issuerId, bundleId: "b")
        },
        BadCredentials(name: "no issuer", message: "no App Store Server API issuer id", hasHint: true) { account, _ in
            try AppStoreAPICredentials(keyFile: account.keyFile, keyId: account.keyId, issuerId: nil, bundleId: "b")
        },
        BadCredentials(name: "an issuer that is no UUID", message: "is not a UUID", hasHint: true) { account, _ in
            try AppStoreAPICredentials(
                keyFile: account.keyFile, keyId: account.keyId, issuerId: "issuerId", bundleId: "b")
        },
        BadCredentials(name: "no bundle id", message: "no bundle id is configured", hasHint: true) { account, _ in
            try AppStoreAPICredentials(
                keyFile: account.keyFile, keyId: account.keyId, issuerId: account.issuerId, bundleId: nil)
        },
    ]

    @Test(arguments: badCredentials)
    func badCredentialsFailBeforeAnyRequest(_ bad: BadCredentials) throws {
        let harness = try APIHarness()
        let directory = try TemporaryDirectory()
        let error = try #require(
            throws: AppStoreAPIError.self,
            performing: {
                let credentials = try bad.make(harness.account, directory)
                _ = try harness.client(credentials: credentials) { _ in }
            })
        #expect(error.code == .invalidCredentials && error.code.isConfiguration)
        #expect(error.message.contains(bad.message), "\(error.message)")
        #expect((error.hint != nil) == bad.hasHint)
        #expect(harness.fake.arrivals == 0)
    }

    /// A configuration that cannot work, with what the error must say.
    struct BadConfiguration: CustomTestStringConvertible, Sendable {
        let name: String
        let message: String
        let adjust: @Sendable (inout AppStoreAPIConfiguration, TemporaryDirectory) throws -> Void

        var testDescription: String { name }
    }

    static let badConfigurations: [BadConfiguration] = [
        BadConfiguration(name: "plain http", message: "is not https://") { configuration, _ in
            configuration.baseURL = "http://localhost:8443"
        },
        BadConfiguration(name: "a URL with a path", message: "is not a host and port") { configuration, _ in
            configuration.baseURL = "https://localhost:8443/inApps"
        },
        BadConfiguration(name: "the Xcode environment", message: "has no Xcode environment") { configuration, _ in
            configuration.environment = .xcode
        },
        BadConfiguration(name: "a CA file that is not there", message: "No such file or directory") {
            configuration, directory in
            configuration.extraCertificateAuthorityFile = directory.file("missing.pem")
        },
        BadConfiguration(name: "a CA file in DER", message: "holds no PEM certificate") { configuration, directory in
            let file = directory.file("ca.der")
            try Data(try TestTLSAuthority().pki.root.derEncoded).write(to: URL(fileURLWithPath: file))
            configuration.extraCertificateAuthorityFile = file
        },
        BadConfiguration(name: "no attempt allowed", message: "is not in 1…10") { configuration, _ in
            configuration.maximumAttempts = 0
        },
    ]

    @Test(arguments: badConfigurations)
    func badConfigurationFailsBeforeAnyRequest(_ bad: BadConfiguration) throws {
        let harness = try APIHarness()
        let directory = try TemporaryDirectory()
        var configuration = harness.client.configuration
        try bad.adjust(&configuration, directory)
        let error = try #require(
            throws: AppStoreAPIError.self, performing: { _ = try harness.client { $0 = configuration } })
        #expect(error.code == .invalidConfiguration && error.code.isConfiguration)
        #expect(error.message.contains(bad.message), "\(error.message)")
        #expect(harness.fake.arrivals == 0)
    }

    @Test func credentialsNeverShowTheKey() throws {
        let account = try APITestAccount.apple()
        let credentials = try account.credentials()
        let key = try Fixtures.text("apple-library/keys/testSigningKey.p8")
        let body = key.split(separator: "\n")[1]
        #expect(!"\(credentials)".contains(body))
        #expect(!String(reflecting: credentials).contains(body))
        #expect("\(credentials)" == "key id 2X9R4HXF34, issuer \(account.issuerId), bundle id com.example")
    }
}
