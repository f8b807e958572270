// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerStore

/// Several `tipledger verify` processes writing one ledger at once: SQLite's locking (WAL,
/// `BEGIN IMMEDIATE`, the busy timeout) must serialise them without losing a line.
@Suite struct ConcurrentWriterTests {
    @Test func twoVerifyProcessesWritingOneLedgerBothRecordEveryLine() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let verify =
                ["verify", "--format", "json", "--db", "shared.sqlite"] + SharedInputs.acceptingTestkit(keys: keys)
            async let first = TipLedgerBinary.run(verify, input: .file(tips.firstHalfPath), in: directory.path)
            async let second = TipLedgerBinary.run(verify, input: .file(tips.secondHalfPath), in: directory.path)
            let results = try await [first, second]
            for result in results {
                #expect(result.exited(0), "\(result.summary)")
                #expect(result.err.isEmpty)
                let lines = try result.jsonLines()
                #expect(lines.count == tips.lines.count / 2)
                #expect(lines.allSatisfy { $0["outcome"] as? String == "recorded" })
            }
            let recorded = try await SQLiteShell.rows(
                "shared.sqlite", "SELECT transaction_id FROM transactions ORDER BY transaction_id", in: directory.path)
            #expect(recorded == tips.transactionIds.sorted())
            #expect(try Ledger.open(path: directory.file("shared.sqlite")).integrityCheck() == "ok")
        }
    }

    @Test func writersThatCreateTheLedgerTogetherBothSucceed() async throws {
        let tips = try await SharedInputs.shared.tips()
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            // Each round starts four processes on a ledger that does not exist yet, so they
            // race to create it and apply the migrations.
            for round in 0..<3 {
                let database = "fresh-\(round).sqlite"
                let verify = ["verify", "--db", database] + SharedInputs.acceptingTestkit(keys: keys)
                let slices = (0..<4).map { index in
                    tips.lines[(round * 16 + index * 4)..<(round * 16 + index * 4 + 4)].joined(separator: "\n") + "\n"
                }
                let results = try await withThrowingTaskGroup(of: ProcessOutput.self) { group in
                    for slice in slices {
                        group.addTask { try await TipLedgerBinary.run(verify, input: .text(slice), in: directory.path) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for result in results {
                    #expect(result.exited(0), "round \(round): \(result.summary)")
                    #expect(result.err.isEmpty)
                }
                let count = try await SQLiteShell.value(
                    database, "SELECT count(*) FROM transactions", in: directory.path)
                #expect(count == "16", "round \(round)")
            }
        }
    }
}
