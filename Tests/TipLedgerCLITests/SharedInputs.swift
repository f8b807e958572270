// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Inputs that are slow to make (a TEST signing chain, thousands of signed tips), made once
/// per test run on first use and shared by the tests that only read them.
actor SharedInputs {
    static let shared = SharedInputs()

    /// The bundle id testkit signs for and the tests accept.
    static let bundleId = "com.example.tipjar"

    /// How many tips the shared input holds: several of `verify`'s batches (128 lines, doubling
    /// to 1024 into a new ledger and to 2048 into one that holds evidence).
    static let tipCount = 4096

    /// The folder holding everything shared; removed when the test process exits.
    static let directory: String = {
        let directory: String
        do {
            directory = try TemporaryDirectory(prefix: "tipledger-cli-shared").path
        } catch {
            preconditionFailure("cannot create the shared test directory: \(error)")
        }
        atexit { try? FileManager.default.removeItem(atPath: SharedInputs.directory) }
        return directory
    }()

    private var keysTask: Task<String, any Error>?
    private var tipsTask: Task<SignedTips, any Error>?

    /// Signed tips in a file, one JWS per line.
    struct SignedTips: Sendable {
        /// The file with all the tips.
        let path: String
        /// The tokens, in file order.
        let lines: [String]
        /// Each token's transactionId, as the tests decoded it.
        let transactionIds: [String]
        /// The first and second half of the tips, each in a file of its own.
        let firstHalfPath: String
        let secondHalfPath: String
    }

    /// The directory of a TEST signing chain made by `testkit init`.
    func keys() async throws -> String {
        if keysTask == nil {
            keysTask = Task {
                let keys = "\(Self.directory)/keys"
                let result = try await TipLedgerBinary.run(["testkit", "init", "--out", keys], in: Self.directory)
                guard result.exited(0) else { throw SharedInputError(step: "testkit init", output: result) }
                return keys
            }
        }
        return try await keysTask!.value
    }

    /// `tipCount` varied tips signed by `keys()` (seeded, so the same ids every run).
    func tips() async throws -> SignedTips {
        if tipsTask == nil {
            tipsTask = Task {
                let keys = try await self.keys()
                let result = try await TipLedgerBinary.run(
                    [
                        "testkit", "transaction", "--keys", keys, "--bundle-id", Self.bundleId, "--environment",
                        "Sandbox", "--count", String(Self.tipCount), "--seed", "20260101",
                    ], in: Self.directory)
                guard result.exited(0), result.outLines.count == Self.tipCount else {
                    throw SharedInputError(step: "testkit transaction --count", output: result)
                }
                let lines = result.outLines
                let half = lines.count / 2
                let path = "\(Self.directory)/tips.txt"
                let first = "\(Self.directory)/tips-first-half.txt"
                let second = "\(Self.directory)/tips-second-half.txt"
                try result.standardOutput.write(to: URL(fileURLWithPath: path))
                try Data(lines[..<half].map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: first))
                try Data(lines[half...].map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: second))
                return SignedTips(
                    path: path, lines: lines, transactionIds: try lines.map { try SignedTip($0).transactionId },
                    firstHalfPath: first, secondHalfPath: second)
            }
        }
        return try await tipsTask!.value
    }

    /// The global options that make `tipledger verify` accept what testkit signed with `keys`.
    static func acceptingTestkit(keys: String) -> [String] {
        ["--keys", keys, "--environment", "Sandbox", "--bundle-id", bundleId]
    }
}

/// A step of making the shared inputs failed.
struct SharedInputError: Error, CustomStringConvertible {
    let step: String
    let output: ProcessOutput
    var description: String { "\(step) failed: \(output.summary)" }
}
