// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerAPITestSupport
import TipLedgerAppStoreAPI
import TipLedgerCore

/// A fake App Store Server API and a client of it that trusts the fake's certificate authority,
/// both on one manual clock.
struct APIHarness {
    /// The manual clock's start: 2026-01-01T00:00:00Z.
    static let start = AppleDate(wholeMilliseconds: 1_767_225_600_000)
    /// The version the client's `User-Agent` names.
    static let version = "0.0.0-test"

    let clock: ManualClock
    let account: APITestAccount
    let fake: FakeAppStoreServer
    let client: AppStoreServerAPIClient

    /// Starts the fake and makes the client, after `adjust` edits its configuration.
    init(
        environment: AppStoreEnvironment = .production, _ adjust: (inout AppStoreAPIConfiguration) -> Void = { _ in }
    ) throws {
        clock = ManualClock(startingAt: Self.start)
        account = try APITestAccount.apple()
        fake = try FakeAppStoreServer(account: account, clock: clock.wallClock)
        var configuration = AppStoreAPIConfiguration(environment: environment, tipledgerVersion: Self.version)
        configuration.baseURL = fake.baseURL
        configuration.extraCertificateAuthorityFile = fake.certificateAuthorityFile
        adjust(&configuration)
        client = try AppStoreServerAPIClient(
            credentials: try account.credentials(), configuration: configuration, clock: apiClock(clock))
    }

    /// Another client of the same fake, with other credentials or settings.
    func client(
        credentials: AppStoreAPICredentials? = nil, _ adjust: (inout AppStoreAPIConfiguration) -> Void
    ) throws -> AppStoreServerAPIClient {
        var configuration = client.configuration
        adjust(&configuration)
        return try AppStoreServerAPIClient(
            credentials: try credentials ?? account.credentials(), configuration: configuration,
            clock: apiClock(clock))
    }
}

/// The client's clock on `clock`: its time, and sleeps that move it.
func apiClock(_ clock: ManualClock) -> APIClock {
    APIClock(wallClock: clock.wallClock) { clock.sleep($0) }
}

extension APITestAccount {
    /// The credentials of this account.
    func credentials() throws -> AppStoreAPICredentials {
        try AppStoreAPICredentials(keyFile: keyFile, keyId: keyId, issuerId: issuerId, bundleId: bundleId)
    }
}

/// The `AppStoreAPIError` `body` throws, or nil (an issue recorded for another error) when it
/// throws none.
func apiError<Result>(_ body: () throws -> Result) -> AppStoreAPIError? {
    do {
        _ = try body()
        return nil
    } catch let error as AppStoreAPIError {
        return error
    } catch {
        Issue.record("\(error) is not an AppStoreAPIError")
        return nil
    }
}
