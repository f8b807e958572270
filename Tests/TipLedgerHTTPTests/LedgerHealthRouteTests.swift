// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `/healthz` and `/metrics` while the ledger's writes fail, through the router. (The full disk
/// itself is met live, in `FullDiskLiveTests`.)
@Suite struct LedgerHealthRouteTests {
    typealias LedgerFailure = OperationalRouteTests.LedgerFailure

    static let failing =
        #"{"status":"unavailable","reason":"other","message":"the ledger cannot commit: a write to the ledger failed"}"#

    /// A write that fails makes /healthz 503 with the reason, and /metrics counts it. A
    /// failure the file system did not cause (a table gone) is not one a probe's commit would
    /// meet, so /healthz answers 503 until a client's write commits again.
    @Test func healthIsUnavailableFromAFailedWriteToTheNextThatCommits() throws {
        let harness = try ServiceHarness(writeProbeInterval: .zero)
        #expect(harness.postTransaction(try TestChains.transaction(id: "2000000000000801")).status == 200)

        let other = try LedgerFailure.damaged.inflict(on: harness)
        let refused = harness.postTransaction(try TestChains.transaction(id: "2000000000000802"))
        let whileFailing = harness.get("/healthz")
        let metrics = try PrometheusText(harness.get("/metrics"))
        try LedgerFailure.damaged.repair(other)
        let repaired = harness.get("/healthz")
        let written = harness.postTransaction(try TestChains.transaction(id: "2000000000000802"))
        let afterAWrite = harness.get("/healthz")

        #expect(refused.status == 503)
        #expect(whileFailing.status == 503)
        #expect(whileFailing.bodyText == Self.failing)
        #expect(internalText(in: whileFailing.body) == [])
        #expect(metrics["tipledger_ledger_write_failures_total", ["reason": "other"]] == 1)
        #expect(metrics["tipledger_ledger_write_failures_total", ["reason": "disk_full"]] == 0)
        #expect(repaired.bodyText == Self.failing)
        #expect(written.status == 200)
        #expect(afterAWrite.status == 200)
        #expect(afterAWrite.bodyText == #"{"status":"ok"}"#)
    }

    /// After a fault of the file system, /healthz answers from the ledger's probe: until one
    /// runs (at most once per interval), the last verdict, then the probe's.
    @Test func healthFollowsTheLedgersProbeAfterAStorageFault() throws {
        let harness = try ServiceHarness(writeProbeInterval: .seconds(3600))
        harness.ledger.health.failed(StoreError(code: 10, message: "disk I/O error", sql: "COMMIT"))

        let beforeAProbe = harness.get("/healthz")
        harness.ledger.probeWriteIfDue(every: .zero)
        let afterAProbe = harness.get("/healthz")

        #expect(
            beforeAProbe.bodyText
                == #"{"status":"unavailable","reason":"io_error","message":"the ledger cannot commit: the disk failed to read or write the ledger (an I/O error)"}"#
        )
        #expect(afterAProbe.bodyText == #"{"status":"ok"}"#)
    }

    /// A write lock another process holds too long is counted, but the next write may well
    /// commit: the ledger stays healthy.
    @Test func aBusyLedgerIsCountedAndStaysHealthy() throws {
        let harness = try ServiceHarness()
        let other = try LedgerFailure.busy.inflict(on: harness)
        let refused = harness.postTransaction(try TestChains.transaction(id: "2000000000000804"))
        let health = harness.get("/healthz")
        try LedgerFailure.busy.repair(other)

        #expect(refused.status == 503)
        #expect(health.status == 200)
        #expect(
            try PrometheusText(harness.get("/metrics"))["tipledger_ledger_write_failures_total", ["reason": "busy"]]
                == 1)
    }

    /// Damage a write meets does not heal: /healthz stays 503 however often it probes, while
    /// the query /healthz asks of the ledger still answers.
    @Test func damageMetByAWriteKeepsTheLedgerUnavailable() throws {
        let harness = try ServiceHarness(writeProbeInterval: .zero) { path in
            try Self.recordATipThenDamageTheEvents(at: path)
        }
        let refused = harness.postTransaction(try TestChains.transaction(id: "2000000000000806"))
        let health = (0..<3).map { _ in harness.get("/healthz") }

        #expect(refused.status == 503)
        #expect(harness.ledger.isHealthy(), "the query /healthz asks does not read the damaged page")
        for answer in health {
            #expect(answer.status == 503)
            #expect(
                answer.bodyText
                    == #"{"status":"unavailable","reason":"damaged","message":"the ledger cannot commit: SQLite found the ledger damaged; audit it with tipledger reverify and restore it from a backup"}"#
            )
        }
        let metrics = try PrometheusText(harness.get("/metrics"))
        #expect(metrics["tipledger_ledger_write_failures_total", ["reason": "damaged"]] == 1)
    }

    /// Records a tip into a new ledger at `path`, closes it, then overwrites the header of the
    /// events table's first page (its root, and its only page) with a page type SQLite knows
    /// none of: the next event written finds the page damaged.
    static func recordATipThenDamageTheEvents(at path: String) throws {
        var root = 0
        var pageSize = 0
        do {
            let ledger = try Ledger.open(path: path)
            _ = try ledger.record(
                .transaction(
                    try TestChains.standardVerifier.verifyTransaction(TestChains.transaction(id: "2000000000000805"))),
                finish: true)
            root = Int(try ledger.integer("SELECT rootpage FROM sqlite_schema WHERE name = 'events'"))
            pageSize = Int(try ledger.integer("PRAGMA page_size"))
        }
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        try file.write(contentsOf: Data([0x01]))
    }
}
