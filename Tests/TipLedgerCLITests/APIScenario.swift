// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// What the App Store Server API commands' tests run `tipledger` against: the fake App Store
/// Server API answering from a scripted store, a test signing chain valid now (trusted with
/// `--keys`), the API test key in a file only its owner reads, and the ledger's folder.
struct APIScenario: Sendable {
    let directory: TemporaryDirectory
    let chain: LiveTestChain
    let account: APITestAccount
    let fake: FakeAppStoreServer
    let store: ScriptedAppStore
    /// The `.p8` key, copied with mode 0600.
    let keyFile: String
    let environment: AppStoreEnvironment
    /// The scenario's "now", milliseconds since 1970: the times of its payloads count back from it.
    let now: Int64

    /// Runs `body` with a new scenario whose fake stands for `environment`, then removes it.
    static func with<Result>(
        _ environment: AppStoreEnvironment = .production, _ body: (APIScenario) async throws -> Result
    ) async throws -> Result {
        try await TemporaryDirectory.with { directory in
            let account = try APITestAccount.apple()
            let keyFile = directory.file("key.p8")
            try FileManager.default.copyItem(atPath: account.keyFile, toPath: keyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
            let fake = try FakeAppStoreServer(account: account, clock: .system)
            let store = ScriptedAppStore()
            fake.respond(store.respond)
            let scenario = APIScenario(
                directory: directory, chain: try LiveTestChain(directory: directory.path), account: account,
                fake: fake, store: store, keyFile: keyFile, environment: environment,
                now: LiveTestChain.now)
            defer { fake.stop() }
            return try await body(scenario)
        }
    }

    /// The App Store Server API options that reach the fake.
    var apiArguments: [String] {
        [
            "--api-key", keyFile, "--api-key-id", account.keyId, "--api-issuer", account.issuerId, "--api-url",
            fake.baseURL, "--api-ca", fake.certificateAuthorityFile,
        ]
    }

    /// The global options of the app the fake serves, with the ledger `database`.
    func globalArguments(database: String = "ledger.sqlite") -> [String] {
        [
            "--db", database, "--keys", chain.keysDirectory, "--bundle-id", account.bundleId, "--environment",
            environment.rawValue, "--app-apple-id", String(TestChains.appAppleId),
        ]
    }

    /// Runs `tipledger arguments` with the global and API options.
    func run(
        _ arguments: [String], database: String = "ledger.sqlite", api: Bool = true,
        environment: [String: String] = [:], input: Subprocess.Input = .none,
        killWhen: (@Sendable (Int) -> Bool)? = nil
    ) async throws -> ProcessOutput {
        try await TipLedgerBinary.run(
            arguments + globalArguments(database: database) + (api ? apiArguments : []), input: input,
            environment: environment, in: directory.path, killWhen: killWhen)
    }

    /// The fake's accepted requests to `endpoint`, in order.
    func requests(_ endpoint: FakeEndpoint) -> [FakeRequest] {
        fake.requests.filter { $0.endpoint == endpoint }
    }

    /// The time `hoursAgo` hours before the scenario's now.
    func time(hoursAgo: Int64) -> Int64 { now - hoursAgo * 3_600_000 }

    /// A signed tip of this scenario's environment, purchased `hoursAgo` hours ago.
    func tip(_ id: String, hoursAgo: Int64, price: Int64 = 990, edit: (inout TestTransaction) -> Void = { _ in })
        throws -> String
    {
        try chain.transaction(
            id: id, environment: environment, purchaseDate: now - hoursAgo * 3_600_000, price: price,
            edit: edit)
    }

    /// A signed notification of this scenario's environment, sent `hoursAgo` hours ago.
    func notification(_ type: String, number: Int, hoursAgo: Int64, about tip: String? = nil) throws -> String {
        try chain.notification(
            type, uuid: TestChains.uuid(number), signedDate: now - hoursAgo * 3_600_000, about: tip,
            environment: environment)
    }
}
