import Foundation
// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

/// A ledger `serve` or `migrate` creates has the small pages of many small commits (a
/// deployment makes with `migrate` the ledger `serve` is to write); one `verify` creates has the
/// large pages of its batches; `migrate --page-size` gives a ledger other pages.
@Suite struct LedgerPageSizeTests {
    @Test func serveAndMigrateCreateSmallPagesAndVerifyLargeOnes() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let serve = try await ServeProcess.start(
                ["--db", "served.sqlite"] + SharedInputs.acceptingTestkit(keys: keys),
                environment: ["TIPLEDGER_API_TOKEN": "page-size-test-token-3b8e"], in: directory.path)
            #expect(serve.stop() == 0)
            let migrate = try await TipLedgerBinary.run(["migrate", "--db", "migrated.sqlite"], in: directory.path)
            #expect(migrate.status == 0, "\(migrate.summary)")
            let verify = try await TipLedgerBinary.run(
                ["verify", "--db", "verified.sqlite"] + SharedInputs.acceptingTestkit(keys: keys), in: directory.path)
            #expect(verify.status == 0, "\(verify.summary)")

            for (ledger, pageSize) in [
                ("served.sqlite", "4096"), ("migrated.sqlite", "4096"), ("verified.sqlite", "16384"),
            ] {
                #expect(
                    try await SQLiteShell.value(ledger, "PRAGMA page_size", in: directory.path) == pageSize, "\(ledger)"
                )
            }
        }
    }

    /// A ledger `verify` made, rewritten with the small pages `serve` writes fewer bytes into:
    /// the same records, still in WAL mode, and the audit passes; asked again, nothing is done.
    @Test func migrateRewritesALedgerWithThePagesItIsGiven() async throws {
        let keys = try await SharedInputs.shared.keys()
        let tips = try await SharedInputs.shared.tips()
        let accepting = SharedInputs.acceptingTestkit(keys: keys)
        try await TemporaryDirectory.with { directory in
            let verify = try await TipLedgerBinary.run(
                ["verify", "--db", "l.sqlite"] + accepting, input: .file(tips.firstHalfPath), in: directory.path)
            #expect(verify.status == 0, "\(verify.summary)")
            let report = ["report", "--db", "l.sqlite", "--format", "json", "--environment", "Sandbox"]
            let before = try await TipLedgerBinary.run(report, in: directory.path)

            let migrate = try await TipLedgerBinary.run(
                ["migrate", "--db", "l.sqlite", "--page-size", "4096"], in: directory.path)

            #expect(migrate.status == 0, "\(migrate.summary)")
            #expect(migrate.outLines.first == "l.sqlite: schema version 5, up to date")
            #expect(
                migrate.outLines.dropFirst().first
                    == "l.sqlite: rewriting its pages of 16384 bytes as pages of 4096 bytes ...")
            #expect(migrate.outLines.last?.hasPrefix("l.sqlite: pages of 4096 bytes, rewritten in ") == true)
            #expect(try await SQLiteShell.value("l.sqlite", "PRAGMA page_size", in: directory.path) == "4096")
            #expect(try await SQLiteShell.value("l.sqlite", "PRAGMA journal_mode", in: directory.path) == "wal")
            let after = try await TipLedgerBinary.run(report, in: directory.path)
            #expect(after.status == 0 && after.out == before.out && before.out.contains("\"transactions\":"))
            let audit = try await TipLedgerBinary.run(["reverify", "--db", "l.sqlite"] + accepting, in: directory.path)
            #expect(audit.status == 0, "\(audit.summary)")

            let again = try await TipLedgerBinary.run(
                ["migrate", "--db", "l.sqlite", "--page-size", "4096"], in: directory.path)
            #expect(again.status == 0 && again.outLines.last == "l.sqlite: pages of 4096 bytes already")
        }
    }

    @Test(arguments: ["1000", "256", "131072", "4k", "-4096"])
    func aPageSizeSQLiteDoesNotTakeIsAUsageError(_ bytes: String) async throws {
        try await TemporaryDirectory.with { directory in
            let migrate = try await TipLedgerBinary.run(
                ["migrate", "--db", "l.sqlite", "--page-size", bytes], in: directory.path)

            #expect(migrate.status == 64)
            #expect(
                migrate.errLines.first == "error: --page-size must be a power of two from 512 to 65536, not '\(bytes)'")
            #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/l.sqlite"))
        }
    }

    /// While `serve` has the ledger open, its pages stay as they are, and the refusal says why.
    @Test func aLedgerOpenElsewhereKeepsItsPages() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let serve = try await ServeProcess.start(
                ["--db", "served.sqlite"] + SharedInputs.acceptingTestkit(keys: keys),
                environment: ["TIPLEDGER_API_TOKEN": "page-size-test-token-3b8e"], in: directory.path)

            let migrate = try await TipLedgerBinary.run(
                ["migrate", "--db", "served.sqlite", "--page-size", "16384"], in: directory.path)

            #expect(serve.stop() == 0)
            #expect(migrate.status == 74)
            #expect(
                migrate.errLines == [
                    "error: the ledger served.sqlite is open in another process; its page size can change only while "
                        + "no other process has it open",
                    "hint: stop serve, sync and Litestream, then run migrate --page-size again",
                ])
            #expect(try await SQLiteShell.value("served.sqlite", "PRAGMA page_size", in: directory.path) == "4096")
            #expect(try await SQLiteShell.value("served.sqlite", "PRAGMA journal_mode", in: directory.path) == "wal")
        }
    }

    /// Litestream 0.5 stops replicating a ledger whose page size changed ("unaligned wal
    /// offset"), so a ledger it replicates keeps its pages: one with Litestream's folder beside
    /// it, or under `TIPLEDGER_REPLICATED`.
    @Test(arguments: [true, false])
    func aReplicatedLedgerKeepsItsPages(_ byFolder: Bool) async throws {
        try await TemporaryDirectory.with { directory in
            let made = try await TipLedgerBinary.run(["migrate", "--db", "l.sqlite"], in: directory.path)
            #expect(made.status == 0, "\(made.summary)")
            if byFolder {
                try FileManager.default.createDirectory(
                    atPath: "\(directory.path)/.l.sqlite-litestream", withIntermediateDirectories: false)
            }

            let migrate = try await TipLedgerBinary.run(
                ["migrate", "--db", "l.sqlite", "--page-size", "16384"],
                environment: byFolder ? [:] : ["TIPLEDGER_REPLICATED": "1"], in: directory.path)

            #expect(migrate.status == 74)
            let why = byFolder ? ".l.sqlite-litestream is beside it" : "TIPLEDGER_REPLICATED is set"
            #expect(
                migrate.errLines.first
                    == "error: Litestream replicates l.sqlite (\(why)), and cannot follow a change of its page size")
            #expect(try await SQLiteShell.value("l.sqlite", "PRAGMA page_size", in: directory.path) == "4096")
        }
    }
}
