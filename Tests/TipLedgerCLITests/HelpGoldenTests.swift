// SPDX-License-Identifier: GPL-3.0-or-later
//
// Help texts and the version line, compared byte for byte with the files in Golden/ by running
// the real binary. After a deliberate change to a help text, regenerate the files with
//
//     TIPLEDGER_UPDATE_GOLDEN=1 swift test --filter TipLedgerCLITests.HelpGoldenTests
//
// which writes them instead of comparing (the tests still check status and stderr), then
// review the diff and commit it.
import Foundation
import Testing
import TipLedgerTestSupport

@Suite struct HelpGoldenTests {
    /// One golden file and the arguments whose output it holds.
    struct GoldenCase: Sendable, CustomTestStringConvertible {
        let file: String
        let arguments: [String]
        var testDescription: String { "tipledger \(arguments.joined(separator: " "))" }
    }

    static let commands = [
        "verify", "finish", "pending", "restore", "report", "migrate", "reverify", "backup", "serve", "health", "sync",
        "lookup", "consumption", "notify-test", "testkit",
    ]

    static let cases: [GoldenCase] =
        [
            GoldenCase(file: "help.txt", arguments: ["--help"]),
            GoldenCase(file: "version.txt", arguments: ["--version"]),
        ]
        + commands.map { GoldenCase(file: "\($0)-help.txt", arguments: [$0, "--help"]) }

    static let goldenDirectory = "\(Fixtures.projectDirectory)/Tests/TipLedgerCLITests/Golden"

    static var updating: Bool { ProcessInfo.processInfo.environment["TIPLEDGER_UPDATE_GOLDEN"] == "1" }

    @Test(arguments: cases)
    func outputMatchesItsGoldenFile(_ golden: GoldenCase) async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(golden.arguments, in: directory.path)
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.err.isEmpty)
            let path = "\(Self.goldenDirectory)/\(golden.file)"
            if Self.updating {
                try result.standardOutput.write(to: URL(fileURLWithPath: path))
                return
            }
            let expected = try #require(
                FileManager.default.contents(atPath: path),
                "missing \(path); run with TIPLEDGER_UPDATE_GOLDEN=1 to create it")
            #expect(
                result.standardOutput == expected,
                "\(golden.testDescription) differs from Golden/\(golden.file):\n\(result.out)")
        }
    }

    @Test(arguments: commands)
    func helpCommandPrintsTheCommandsHelp(_ command: String) async throws {
        try await TemporaryDirectory.with { directory in
            async let viaWord = TipLedgerBinary.run(["help", command], in: directory.path)
            async let viaOption = TipLedgerBinary.run([command, "--help"], in: directory.path)
            let (word, option) = try await (viaWord, viaOption)
            #expect(word.exited(0) && option.exited(0))
            #expect(word.err.isEmpty)
            #expect(word.standardOutput == option.standardOutput)
            #expect(word.out.hasPrefix("Usage: tipledger \(command)"))
        }
    }

    @Test func shortHelpOptionAndBareHelpWordPrintTheGeneralHelp() async throws {
        try await TemporaryDirectory.with { directory in
            async let long = TipLedgerBinary.run(["--help"], in: directory.path)
            async let short = TipLedgerBinary.run(["-h"], in: directory.path)
            async let word = TipLedgerBinary.run(["help"], in: directory.path)
            let (longResult, shortResult, wordResult) = try await (long, short, word)
            #expect(longResult.exited(0) && shortResult.exited(0) && wordResult.exited(0))
            #expect(shortResult.standardOutput == longResult.standardOutput)
            #expect(wordResult.standardOutput == longResult.standardOutput)
            for command in Self.commands {
                #expect(longResult.out.contains("\n  \(command) "), "the command list names \(command)")
            }
        }
    }

    @Test func helpNeedsNoConfigurationAndIgnoresBrokenSettings() async throws {
        try await TemporaryDirectory.with { directory in
            let broken = ["TIPLEDGER_ENVIRONMENT": "Staging", "TIPLEDGER_APP_APPLE_ID": "none"]
            async let help = TipLedgerBinary.run(["verify", "--help"], environment: broken, in: directory.path)
            async let plain = TipLedgerBinary.run(["verify", "--help"], in: directory.path)
            let (helpResult, plainResult) = try await (help, plain)
            #expect(helpResult.exited(0), "\(helpResult.summary)")
            #expect(helpResult.standardOutput == plainResult.standardOutput)
        }
    }
}
