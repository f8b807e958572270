// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// The App Store Server API settings of the commands that call it: every missing or unusable
/// one is exit 64 with an `error:` line (and a hint where one helps) before any request.
@Suite struct APIConfigurationTests {
    /// A setting gone wrong: options left out of the scenario's and put in, and variables set.
    struct BadSetting: Sendable, CustomTestStringConvertible {
        let name: String
        var dropping: [String] = []
        var adding: @Sendable (APIScenario) throws -> [String] = { _ in [] }
        var environment: [String: String] = [:]
        let message: String
        var hint: String? = nil

        var testDescription: String { name }
    }

    static let badSettings: [BadSetting] = [
        BadSetting(
            name: "no key", dropping: ["--api-key"], message: "no App Store Server API key is configured",
            hint: "pass --api-key FILE or set TIPLEDGER_API_KEY_FILE"),
        BadSetting(
            name: "a key file that is not there", dropping: ["--api-key"],
            environment: ["TIPLEDGER_API_KEY_FILE": "/nonexistent/AuthKey.p8"],
            message: "cannot read the API key /nonexistent/AuthKey.p8: No such file or directory", hint: ".p8"),
        BadSetting(
            name: "a P-384 key", dropping: ["--api-key"],
            adding: { scenario in
                let file = scenario.directory.file("p384.p8")
                try Data(try PrivateKey.generate(curve: .p384).pemEncoded.utf8).write(to: URL(fileURLWithPath: file))
                return ["--api-key", file]
            }, message: "is not an EC P-256 key", hint: ".p8"),
        BadSetting(
            name: "no key id", dropping: ["--api-key-id"], message: "no App Store Server API key id is configured",
            hint: "TIPLEDGER_API_KEY_ID"),
        BadSetting(
            name: "a key id that is no key id", dropping: ["--api-key-id"],
            environment: ["TIPLEDGER_API_KEY_ID": "2X9R4/HXF34"], message: "is not a key id"),
        BadSetting(
            name: "no issuer", dropping: ["--api-issuer"], message: "no App Store Server API issuer id is configured",
            hint: "TIPLEDGER_API_ISSUER_ID"),
        BadSetting(
            name: "an issuer that is no UUID", dropping: ["--api-issuer"],
            environment: ["TIPLEDGER_API_ISSUER_ID": "my-issuer"], message: "is not a UUID", hint: "App Store Connect"),
        BadSetting(
            name: "a URL that is not https", dropping: ["--api-url"],
            environment: ["TIPLEDGER_API_URL": "http://localhost:8443"], message: "is not https://",
            hint: "https://HOST[:PORT]"),
        BadSetting(
            name: "a test server for two environments", adding: { _ in ["--environment", "Production,Sandbox"] },
            message: "with --api-url, name the one environment the test server stands for",
            hint: "--environment Sandbox"),
        BadSetting(
            name: "a CA file that is not there", dropping: ["--api-ca"], adding: { _ in ["--api-ca", "missing.pem"] },
            message: "cannot read the API CA file missing.pem"),
        BadSetting(
            name: "two bundle ids", adding: { _ in ["--bundle-id", "com.example,com.example.other"] },
            message: "the App Store Server API is called for one app", hint: "one bundle id"),
    ]

    /// `arguments` without each option in `names` and its value.
    static func dropping(_ names: [String], from arguments: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            if names.contains(arguments[index]) {
                index += 2
            } else {
                kept.append(arguments[index])
                index += 1
            }
        }
        return kept
    }

    /// Runs `command` with the scenario's settings changed as `bad` says.
    static func run(_ command: [String], _ bad: BadSetting, in scenario: APIScenario) async throws -> ProcessOutput {
        var globals = scenario.globalArguments()
        let added = try bad.adding(scenario)
        // A global option given again replaces the scenario's.
        globals = dropping(added.filter { $0.hasPrefix("--") && globals.contains($0) }, from: globals)
        let arguments = command + globals + dropping(bad.dropping, from: scenario.apiArguments) + added
        return try await TipLedgerBinary.run(arguments, environment: bad.environment, in: scenario.directory.path)
    }

    @Test(arguments: badSettings)
    func aBadSettingIsAUsageErrorBeforeAnyRequest(_ bad: BadSetting) async throws {
        try await APIScenario.with { scenario in
            let result = try await Self.run(["sync"], bad, in: scenario)
            #expect(result.exited(64), "\(result.summary)")
            #expect(result.errLines.first?.hasPrefix("error: ") == true, "\(result.err)")
            #expect(result.errLines.first?.contains(bad.message) == true, "\(result.err)")
            if let hint = bad.hint {
                #expect(result.errLines.dropFirst().first?.hasPrefix("hint: ") == true, "\(result.err)")
                #expect(result.err.contains(hint), "\(result.err)")
            }
            #expect(result.out.isEmpty)
            #expect(scenario.fake.arrivals == 0, "no request is made")
            #expect(!scenario.directory.exists("ledger.sqlite"), "nothing is created")
        }
    }

    @Test(arguments: [["sync"], ["sync", "--history", "1"], ["lookup", "1"], ["notify-test"], ["serve"]])
    func everyCommandThatCallsAppleChecksItsSettingsFirst(_ command: [String]) async throws {
        try await APIScenario.with { scenario in
            let bad = Self.badSettings.first { $0.name == "no key id" }!
            let result = try await Self.run(command, bad, in: scenario)
            #expect(result.exited(64), "\(result.summary)")
            #expect(result.errLines.first == "error: no App Store Server API key id is configured", "\(result.err)")
            #expect(scenario.fake.arrivals == 0)
        }
    }

    @Test func credentialsAppleRefusesAreAUsageErrorWithAHint() async throws {
        try await APIScenario.with { scenario in
            let other = BadSetting(
                name: "another issuer", dropping: ["--api-issuer"],
                adding: { _ in ["--api-issuer", "11111111-2222-3333-4444-555555555555"] }, message: "")
            let result = try await Self.run(["sync"], other, in: scenario)
            #expect(result.exited(64), "\(result.summary)")
            #expect(
                result.errLines.suffix(2) == [
                    "error: Get Notification History: Apple answered 401",
                    "hint: Apple accepts no token these credentials sign: check the API key file, key id, issuer id "
                        + "and bundle id",
                ], "\(result.err)")
            #expect(scenario.fake.arrivals == 1, "a 401 is not tried again")
        }
    }
}
