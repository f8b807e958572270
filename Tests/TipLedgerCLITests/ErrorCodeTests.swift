// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

/// Every error code of docs/verification.md comes out of `tipledger verify` as the verifier gives it,
/// with its Apple status, and a rejected line writes nothing to the ledger.
@Suite struct ErrorCodeTests {
    @Test func verifyReportsEveryErrorCodeAndRecordsNoneOfTheLines() async throws {
        let codes = TestChains.offlineCodes
        let lines = try codes.map { code in
            try TestChains.rejectedToken(code) ?? #require(try TestChains.rejectedToken(code, notification: true))
        }
        try await TemporaryDirectory.with { directory in
            var roots: [String] = []
            for (index, root) in TestChains.rejectionRoots.enumerated() {
                roots += ["--root", try directory.write(Data(root.derEncoded), to: "root\(index).cer")]
            }
            let result = try await TipLedgerBinary.run(
                [
                    "verify", "--format", "json", "--db", "l.sqlite", "--bundle-id", "com.example.tips",
                    "--environment",
                    "Sandbox,Production", "--app-apple-id", String(TestChains.appAppleId),
                ] + roots,
                input: .text(lines.joined(separator: "\n") + "\n"), in: directory.path)

            #expect(result.exited(1), "\(result.summary)")
            let reports = try result.jsonLines()
            #expect(reports.count == codes.count)
            for (code, report) in zip(codes, reports) {
                #expect(report["ok"] as? Bool == false, "\(code)")
                #expect(report["error"] as? String == code.rawValue)
                #expect(report["appleStatus"] as? String == code.appleStatus, "\(code)")
            }
            for table in ["evidence", "transactions", "notifications", "events"] {
                #expect(
                    try await SQLiteShell.value("l.sqlite", "SELECT count(*) FROM \(table)", in: directory.path) == "0",
                    "\(table)")
            }
        }
    }
}
