// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerTestSupport

/// The ledgers the report page is tested on, each made once per test run on first use: empty,
/// one tip, tips in three currencies, a small fixed ledger (seeded tips on fixed dates, a refund,
/// a prorated refund and a revocation), and 100,000 transactions written straight into the
/// table by scripts/synthetic-ledger (signing that many would take minutes; the page reads only
/// the table).
actor PageLedgers {
    static let shared = PageLedgers()

    enum Kind: String, CaseIterable, Sendable {
        case empty, oneTip, threeCurrencies, fixed, hundredThousand
    }

    /// The example catalog, which names the products.
    static let catalog = CatalogTests.example
    static let directory = "\(SharedInputs.directory)/page-ledgers"

    private var tasks: [Kind: Task<String, any Error>] = [:]

    /// The path of the ledger of `kind`.
    func ledger(_ kind: Kind) async throws -> String {
        if tasks[kind] == nil {
            tasks[kind] = Task { try await Self.make(kind) }
        }
        return try await tasks[kind]!.value
    }

    /// The options that read `ledger` with the catalog, in every environment.
    static func reading(_ ledger: String) -> [String] {
        ["--db", ledger, "--catalog", catalog]
    }

    private static func make(_ kind: Kind) async throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/\(kind.rawValue).sqlite"
        switch kind {
        case .empty:
            try await run(["migrate", "--db", path])
        case .oneTip:
            try await record(into: path, tips: [["--purchase-date", "2026-03-02T09:30:00Z", "--account", account(1)]])
        case .threeCurrencies:
            let tips = [("USA", 40, 31), ("DEU", 25, 32), ("JPN", 20, 33)].map { storefront, count, seed in
                [
                    "--count", String(count), "--accounts", "12", "--seed", String(seed), "--storefront", storefront,
                    "--purchase-date", "2026-03-20T12:00:00Z", "--days", "90",
                ]
            }
            try await record(into: path, tips: tips, refunding: [2, 50])
        case .fixed:
            let tips = [("USA", 24, 29), ("DEU", 8, 30)].map { storefront, count, seed in
                [
                    "--count", String(count), "--accounts", "5", "--seed", String(seed), "--storefront", storefront,
                    "--purchase-date", "2026-03-20T12:00:00Z", "--days", "20",
                ]
            }
            try await record(into: path, tips: tips, refunding: [3], prorating: [7], revoking: [5])
        case .hundredThousand:
            let result = try await Subprocess(
                executable: "/bin/sh",
                arguments: [
                    "\(Fixtures.projectDirectory)/scripts/synthetic-ledger", "100000", path, try TipLedgerBinary.path(),
                ],
                environment: Subprocess.baseEnvironment(), directory: directory
            ).run()
            guard result.exited(0), result.err.isEmpty else {
                throw SharedInputError(step: "scripts/synthetic-ledger", output: result)
            }
        }
        return path
    }

    /// An account token of the tests, from a number.
    static func account(_ number: Int) -> String {
        "7e3fb20b-4cdb-47cc-936d-\(String(format: "%012d", number))"
    }

    /// Signs the tips each argument list describes and the notifications about the tips at the
    /// given lines (1-based), and records them all into `path`.
    private static func record(
        into path: String, tips: [[String]], refunding: [Int] = [], prorating: [Int] = [], revoking: [Int] = []
    ) async throws {
        let keys = try await SharedInputs.shared.keys()
        let signing = [
            "testkit", "transaction", "--keys", keys, "--catalog", catalog, "--bundle-id", SharedInputs.bundleId,
        ]
        var lines: [String] = []
        for arguments in tips {
            lines += try await run(signing + arguments).outLines
        }
        let notifications = [
            ("REFUND", refunding, []), ("REFUND", prorating, ["--revocation-percentage", "50"]),
            ("REVOKE", revoking, []),
        ]
        var bodies: [String] = []
        for (type, numbers, extra) in notifications {
            for number in numbers {
                bodies += try await run(
                    [
                        "testkit", "notification", "--keys", keys, "--type", type, "--transaction", lines[number - 1],
                        "--signed-date", "2026-03-25T00:00:00Z",
                    ] + extra
                ).outLines
            }
        }
        let input = (lines + bodies).map { $0 + "\n" }.joined()
        try await run(["verify", "--db", path] + SharedInputs.acceptingTestkit(keys: keys), input: input)
    }

    @discardableResult
    private static func run(_ arguments: [String], input: String? = nil) async throws -> ProcessOutput {
        let result = try await TipLedgerBinary.run(
            arguments, input: input.map { .text($0) } ?? .none, in: directory)
        guard result.exited(0) else {
            throw SharedInputError(step: arguments.prefix(3).joined(separator: " "), output: result)
        }
        return result
    }
}
