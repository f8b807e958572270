// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// A ledger made by an older tipledger is upgraded when a command opens it, saying so first on
/// standard error (a large ledger takes a while); a new ledger is made without a word.
@Suite struct SchemaUpgradeTests {
    /// The schema version this binary makes: one per file in `migrations/`.
    static let latest: Int = {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.projectDirectory + "/migrations")) ?? []
        return names.filter { $0.hasSuffix(".sql") }.count
    }()

    /// Makes `name` in `directory` a ledger at schema version 1, as the first release made it.
    static func firstVersionLedger(_ name: String, in directory: String) async throws {
        let first = try String(
            contentsOfFile: Fixtures.projectDirectory + "/migrations/0001_ledger.sql", encoding: .utf8)
        _ = try await SQLiteShell.rows(
            name, "PRAGMA journal_mode = WAL; \(first) PRAGMA user_version = 1; PRAGMA application_id = 1414548551;",
            in: directory)
    }

    @Test func anOlderLedgerIsUpgradedAfterANotice() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.firstVersionLedger("old.sqlite", in: directory.path)

            let report = try await TipLedgerBinary.run(["report", "--db", "old.sqlite"], in: directory.path)

            #expect(report.exited(0), "\(report.summary)")
            #expect(
                report.err
                    == "upgrading the ledger old.sqlite from schema version 1 to \(Self.latest); a large ledger takes a while\n"
            )
            #expect(
                try await SQLiteShell.value("old.sqlite", "PRAGMA user_version", in: directory.path) == "\(Self.latest)"
            )
            let again = try await TipLedgerBinary.run(["migrate", "--db", "old.sqlite"], in: directory.path)
            #expect(again.err.isEmpty, "\(again.summary)")
            #expect(again.out == "old.sqlite: schema version \(Self.latest), up to date\n")
        }
    }

    /// An older ledger this user may not write is not read half-upgraded: the command says
    /// how to upgrade it, and leaves it as it is.
    @Test(.enabled(if: ExitStatusTests.permissionsBind, "running as root without setpriv(1)"))
    func anOlderLedgerThisUserMayNotWriteIsRefusedSayingHowToUpgradeIt() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.firstVersionLedger("old.sqlite", in: directory.path)
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o444], ofItemAtPath: directory.file("old.sqlite"))
            let before = try directory.read("old.sqlite")

            let report = try await ExitStatusTests.runBoundByPermissions(
                ["report", "--db", "old.sqlite"], in: directory.path)

            #expect(report.exited(74), "\(report.summary)")
            #expect(
                report.errLines == [
                    "error: the ledger old.sqlite has schema version 1, older than this tipledger's \(Self.latest), "
                        + "and cannot be upgraded: this user may not write it",
                    "hint: upgrade it once with 'tipledger migrate' as a user who can write the ledger and its directory",
                ])
            #expect(try directory.read("old.sqlite") == before)
        }
    }

    @Test func migrateSaysItUpgradesAndWhatItDid() async throws {
        try await TemporaryDirectory.with { directory in
            try await Self.firstVersionLedger("old.sqlite", in: directory.path)

            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "old.sqlite"], in: directory.path)

            #expect(migrate.exited(0), "\(migrate.summary)")
            #expect(migrate.err.contains("from schema version 1 to \(Self.latest);"))
            #expect(migrate.out == "old.sqlite: schema version 1 → \(Self.latest)\n")
        }
    }

    @Test func aNewLedgerIsMadeWithoutANotice() async throws {
        try await TemporaryDirectory.with { directory in
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "new.sqlite"], in: directory.path)

            #expect(migrate.exited(0), "\(migrate.summary)")
            #expect(migrate.err.isEmpty)
            #expect(migrate.out == "new.sqlite: set up, schema version \(Self.latest)\n")
        }
    }
}
