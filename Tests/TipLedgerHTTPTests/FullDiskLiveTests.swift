// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `tipledger serve` with its ledger on a small tmpfs of its own (`PrivateMount`), filled up as
/// a real disk fills: the failure the service meets is the kernel's ENOSPC, not a stand-in.
@Suite struct FullDiskLiveTests {
    /// The tmpfs: room for the ledger and a few requests' log.
    static let volumeBytes = 4 << 20

    /// Returns at `instant`: the service's rule is a clock's, so the test waits for the clock,
    /// once, rather than ask again and again until the rule lets the answer change.
    static func wait(until instant: ContinuousClock.Instant) {
        let remaining = instant - ContinuousClock.now
        guard remaining > .zero else { return }
        let (seconds, attoseconds) = remaining.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Health tells the truth about writing: 503 with the reason while the disk is full, the
    /// failed commit counted in /metrics, `tipledger health` unhealthy; and once there is room
    /// again, /healthz finds by itself that the ledger commits, with no client writing and
    /// without changing what the ledger holds.
    @Test(.enabled(if: PrivateMount.isAvailable, "this machine allows no mount namespaces"))
    func healthIsUnavailableWhileTheDiskIsFullAndComesBackByItself() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("volume")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let service = try LiveService(directory: directory, database: "volume/ledger.sqlite") { command in
            PrivateMount.tmpfs(at: folder, bytes: Self.volumeBytes, running: command)
        }
        let volume = PrivateMount.path(folder, inside: service.child.processIdentifier)
        let connection = try service.connect()
        let bearer = [("Authorization", "Bearer \(LiveService.apiToken)")]
        let first = Array(try TestChains.transaction(id: "2000000000000901").utf8)
        let second = Array(try TestChains.transaction(id: "2000000000000902").utf8)
        try #require(try connection.exchange("POST", "/v1/transactions", body: first).status == 200)

        let filled = try Self.fill(volume + "/ballast")
        let refused = try connection.exchange("POST", "/v1/transactions", body: second)
        let health = try connection.exchange("GET", "/healthz")
        let metrics = try connection.exchange("GET", "/metrics")
        let check = try TipledgerProcess.run(
            ["health", "--listen", "127.0.0.1:\(service.port)"], environment: LiveService.environment())
        let report = try connection.exchange("GET", "/v1/report", headers: bearer)
        // Every attempt to commit so far, the probes of /healthz among them, came before this.
        let lastAttempt = ContinuousClock.now

        #expect(filled > 0)
        #expect(refused.status == 503)
        #expect(health.status == 503)
        #expect(
            health.bodyText
                == #"{"status":"unavailable","reason":"disk_full","message":"the ledger cannot commit: the file system holding the ledger is full"}"#
        )
        #expect(metrics.bodyText.contains("\ntipledger_ledger_write_failures_total{reason=\"disk_full\"} 1\n"))
        #expect(check.status == 1)
        #expect(
            check.output
                == "unhealthy: /healthz answered 503: the ledger cannot commit: the file system holding the ledger is full\n"
        )
        // The log names the ledger and says what to do; the client was told neither.
        #expect(
            service.diagnostics.contains(
                "error: ledger error: cannot write the ledger \(service.databasePath): its file system is full"))
        #expect(service.diagnostics.contains("; hint: free space on the file system that holds"))

        // Room again. serve probes at most once a second (TipLedgerService's
        // writeProbeInterval), counted from the last attempt to commit: the first /healthz a
        // second after that probes, and finds that the ledger commits.
        try FileManager.default.removeItem(atPath: volume + "/ballast")
        Self.wait(until: lastAttempt + .seconds(1))
        let recovered = try connection.exchange("GET", "/healthz")
        let reportAfterProbe = try connection.exchange("GET", "/v1/report", headers: bearer)
        let retried = try connection.exchange("POST", "/v1/transactions", body: second)

        #expect(recovered.bodyText == #"{"status":"ok"}"#)
        #expect(reportAfterProbe.bodyText == report.bodyText, "the probe recorded nothing")
        #expect(retried.status == 200)
        #expect(try jsonObject(retried.body)["outcome"] as? String == "recorded")
        #expect(service.stop() == 0, "\(service.diagnostics)")
    }

    /// Writes zeros to a new file at `path` until the file system refuses more; returns the
    /// bytes written.
    static func fill(_ path: String) throws -> Int {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var written = 0
        while true {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                guard errno == ENOSPC else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                return written
            }
            written += count
        }
    }
}
