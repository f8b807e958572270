// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore

/// `verify` killed with SIGKILL part-way loses nothing it reported and, run again on the same
/// input, ends with exactly the ledger a clean run makes.
@Suite struct CrashSafetyTests {
    /// Kill once at least this many results have been printed. Commits of at least 512 lines
    /// come at the ends of verify's batches of 128, 256, 512 and then 1024 lines (a new ledger):
    /// the first holds three batches (unless a second passed first), and the kill comes once a
    /// later commit was printed, while the next batch is recorded and others verified.
    static let killAfterLines = 1536

    @Test func ledgerKilledMidRunEqualsACleanRunAfterTheSameInputAgain() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let verify =
                ["verify", "--format", "json", "--commit-every", "512"] + SharedInputs.acceptingTestkit(keys: keys)
            async let cleanRun = TipLedgerBinary.run(
                verify + ["--db", "clean.sqlite"], input: .file(tips.path), in: directory.path)
            let killed = try await TipLedgerBinary.run(
                verify + ["--db", "crash.sqlite"], input: .file(tips.path), in: directory.path,
                killWhen: { $0 >= Self.killAfterLines })
            try #require(
                killed.signaled && killed.status == SIGKILL,
                "verify must still be running when killed: \(killed.summary)")
            // Everything printed before the kill (complete lines) was committed before it was printed.
            let reported = try killed.jsonLines()
            #expect(reported.count >= Self.killAfterLines)
            #expect(reported.count < tips.lines.count)
            for (index, line) in reported.enumerated() {
                #expect(JSONValue.int64(line["line"]) == Int64(index + 1))
                #expect(line["outcome"] as? String == "recorded")
            }
            let reportedIds = Set(reported.compactMap { $0["transactionId"] as? String })
            let afterKill = try await SQLiteShell.rows(
                "crash.sqlite", "SELECT transaction_id FROM transactions", in: directory.path)
            #expect(reportedIds.isSubset(of: Set(afterKill)), "a reported line is missing after the kill")

            let rerun = try await TipLedgerBinary.run(
                verify + ["--db", "crash.sqlite"], input: .file(tips.path), in: directory.path)
            #expect(rerun.exited(0), "\(rerun.summary)")
            #expect(rerun.err.isEmpty)
            let results = try rerun.jsonLines()
            try #require(results.count == tips.lines.count)
            for (index, result) in results.enumerated() {
                let id = result["transactionId"] as? String
                #expect(result["ok"] as? Bool == true, "line \(index + 1): \(result)")
                #expect(id == tips.transactionIds[index], "line \(index + 1)")
                if let id, reportedIds.contains(id) { #expect(result["outcome"] as? String == "duplicate") }
            }

            let clean = try await cleanRun
            #expect(clean.exited(0), "\(clean.summary)")
            async let crashSnapshot = LedgerSnapshot.read("crash.sqlite", in: directory.path)
            async let cleanSnapshot = LedgerSnapshot.read("clean.sqlite", in: directory.path)
            let (crashed, cleanly) = try await (crashSnapshot, cleanSnapshot)
            #expect(crashed.transactions.count == tips.lines.count)
            #expect(crashed.duplicateTransactions == 0)
            #expect(crashed.evidenceByKind == ["transaction": tips.lines.count])
            #expect(crashed.eventsByKind == cleanly.eventsByKind)
            #expect(crashed.evidenceByKind == cleanly.evidenceByKind)
            #expect(crashed.transactions == cleanly.transactions)
            #expect(crashed.evidence == cleanly.evidence)
            #expect(crashed.events == cleanly.events)
            #expect(crashed == cleanly)
            #expect(
                crashed.transactions.map { String($0.split(separator: "|")[1]) }.sorted()
                    == tips.transactionIds.sorted())

            let integrity = try await SQLiteShell.value("crash.sqlite", "PRAGMA integrity_check", in: directory.path)
            #expect(integrity == "ok")
            #expect(try Ledger.open(path: directory.file("crash.sqlite")).integrityCheck() == "ok")
        }
    }
}
