// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerTestSupport

/// `reverify`, the audit: SQLite's integrity check, the ledger's own rules, and every stored
/// payload verified again, run on ledgers damaged or changed behind tipledger's back.
@Suite struct AuditTests {
    /// `reverify` with the testkit chain trusted.
    static func audit(_ ledger: String, json: Bool = false, in directory: TemporaryDirectory) async throws
        -> ProcessOutput
    {
        try await TipLedgerBinary.run(
            ["reverify", "--db", ledger] + (json ? ["--format", "json"] : [])
                + SharedInputs.acceptingTestkit(keys: try await SharedInputs.shared.keys()),
            in: directory.path)
    }

    /// Random bytes over the events table's page (its only page, in a small ledger): `report`
    /// never reads it and answers as before, but the audit fails, naming the table, and says
    /// to restore from a backup.
    @Test func aPageOfRandomBytesInTheEventsFailsTheAuditNamingTheTable() async throws {
        try await TemporaryDirectory.with { directory in
            try await ExitStatusTests.recordTipAndRefund(into: "l.sqlite", in: directory)
            var random = SeededGenerator(seed: 27)
            try await ExitStatusTests.overwriteFirstPage(of: "events", in: "l.sqlite", directory: directory) { size in
                Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) })
            }

            let report = try await TipLedgerBinary.run(["report", "--db", "l.sqlite"], in: directory.path)
            let audit = try await Self.audit("l.sqlite", in: directory)
            let auditInJSON = try await Self.audit("l.sqlite", json: true, in: directory)

            #expect(report.exited(0), "\(report.summary)")
            #expect(audit.exited(74), "\(audit.summary)")
            #expect(!audit.outLines.isEmpty)
            #expect(audit.outLines.allSatisfy { $0.hasPrefix("damaged: table events: ") }, "\(audit.out)")
            #expect(
                audit.errLines == [
                    "error: the ledger l.sqlite is damaged: SQLite's integrity check found problems in table events",
                    "hint: restore it from a copy made with tipledger backup that passes this audit, then verify the "
                        + "evidence the damaged file still yields into it again (see the README)",
                ])
            #expect(auditInJSON.exited(74), "\(auditInJSON.summary)")
            let json = try auditInJSON.json()
            #expect(Array(json.keys) == ["integrity"])
            let problems = try #require(json["integrity"] as? [[String: Any]])
            #expect(problems.count == audit.outLines.count)
            #expect(problems.allSatisfy { $0["table"] as? String == "events" && $0["problem"] is String })
        }
    }

    /// A sound file whose rows do not add up (changed with sqlite3, behind tipledger's back)
    /// fails the audit, each broken rule named with its row.
    @Test func rowsThatBreakTheLedgersRulesFailTheAudit() async throws {
        try await TemporaryDirectory.with { directory in
            try await ExitStatusTests.recordTipAndRefund(into: "l.sqlite", in: directory)
            let ids = try await SQLiteShell.rows(
                "l.sqlite", "SELECT transaction_id FROM transactions ORDER BY id", in: directory.path)
            let uuid = try await SQLiteShell.value(
                "l.sqlite", "SELECT notification_uuid FROM notifications", in: directory.path)
            try #require(ids.count == 2)
            // The shell enforces no foreign keys; the triggers that keep events append-only go first.
            _ = try await SQLiteShell.rows(
                "l.sqlite",
                """
                DROP TRIGGER events_are_not_updated;
                UPDATE events SET gross_delta_milli = gross_delta_milli + 1
                    WHERE id = (SELECT min(id) FROM events WHERE transaction_id = '\(ids[0])');
                DELETE FROM evidence WHERE id = (SELECT evidence_id FROM transactions WHERE transaction_id = '\(ids[1])');
                DELETE FROM evidence WHERE id = (SELECT evidence_id FROM notifications);
                """, in: directory.path)
            let stored = try await SQLiteShell.value("l.sqlite", "SELECT count(*) FROM evidence", in: directory.path)

            let audit = try await Self.audit("l.sqlite", in: directory)
            let auditInJSON = try await Self.audit("l.sqlite", json: true, in: directory)

            #expect(audit.exited(1), "\(audit.summary)")
            let lines = audit.outLines
            #expect(lines.count == 6, "\(audit.out)")
            #expect(
                lines.first?.hasPrefix("Sandbox transaction \(ids[0]): its amounts (gross ") == true, "\(audit.out)")
            #expect(lines.first?.contains("are not the sums of its events' (gross ") == true)
            #expect(
                lines.dropFirst().first?.hasPrefix("Sandbox transaction \(ids[1]): its evidence (evidence row ") == true
            )
            #expect(lines.dropFirst().first?.hasSuffix(") is missing") == true)
            #expect(
                lines.dropFirst(2).first?.hasPrefix(
                    "Sandbox notification \(uuid) about transaction \(ids[0]): its evidence") == true)
            #expect(
                lines.suffix(3) == [
                    "integrity check: ok",
                    "2 transactions and 1 notification checked against the ledger's rules, 3 broken",
                    "\(stored) stored payloads checked, 0 failed",
                ])
            #expect(
                audit.errLines == [
                    "hint: a broken rule means the ledger was changed other than by tipledger; compare it with a backup (see the README)"
                ])
            #expect(auditInJSON.exited(1), "\(auditInJSON.summary)")
            let json = try auditInJSON.json()
            #expect((json["integrity"] as? [Any])?.isEmpty == true)
            let broken = try #require(json["invariants"] as? [[String: Any]])
            #expect(broken.map { $0["kind"] as? String } == ["transaction", "transaction", "notification"])
            #expect(broken.map { $0["transactionId"] as? String } == [ids[0], ids[1], ids[0]])
            #expect(broken.last?["notificationUUID"] as? String == uuid)
        }
    }

    /// Evidence whose header row is gone cannot be verified: it fails the audit rather than being
    /// left out of it.
    @Test func evidenceWithoutItsHeaderFailsTheAudit() async throws {
        try await TemporaryDirectory.with { directory in
            try await ExitStatusTests.recordTipAndRefund(into: "l.sqlite", in: directory)
            let stored = try await SQLiteShell.value("l.sqlite", "SELECT count(*) FROM evidence", in: directory.path)
            _ = try await SQLiteShell.rows("l.sqlite", "DELETE FROM jws_headers", in: directory.path)

            let audit = try await Self.audit("l.sqlite", in: directory)

            #expect(audit.exited(1), "\(audit.summary)")
            #expect(audit.outLines.last == "\(stored) stored payloads checked, \(stored) failed")
            #expect(
                audit.outLines.first?.hasSuffix(
                    ": malformed_jws: its header (jws_headers row 1) is missing from the ledger") == true,
                "\(audit.out)")
        }
    }
}
