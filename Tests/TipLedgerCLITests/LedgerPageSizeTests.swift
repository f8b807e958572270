// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

/// A ledger `serve` or `migrate` creates has the small pages of many small commits (a
/// deployment makes with `migrate` the ledger `serve` is to write); one `verify` creates has the
/// large pages of its batches.
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
}
