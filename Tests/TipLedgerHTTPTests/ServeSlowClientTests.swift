// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#endif

extension ServeLiveTests {
    /// A bounded slowloris on the real binary with its default settings: one address opens 512
    /// connections and trickles their headers, a byte per connection per probe; meanwhile
    /// probes from another address get `/healthz` and `/metrics` answered. Every probe has
    /// twenty seconds, far beyond what an answer takes; a server with room for 64 connections
    /// at once and 30 seconds for headers would keep a probe waiting behind the attack's queued
    /// connections for minutes.
    @Test func healthAndMetricsAreAnsweredWhileManyConnectionsTrickleTheirHeaders() throws {
        let attackers = 512
        let probes = 20
        try raiseOpenFileLimit(toAtLeast: attackers + 512)
        let service = try LiveService()

        var slow: [LoopbackConnection] = []
        for _ in 0..<attackers {
            let connection = try service.connect()
            try connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(connection)
        }
        var statuses: [Int] = []
        var mostHeld = 0
        for round in 0..<probes {
            for connection in slow { try? connection.send("x") }
            let probe = try LoopbackConnection(port: service.port, receiveTimeout: .seconds(20), from: "127.0.0.2")
            statuses.append(try probe.exchange("GET", round % 2 == 0 ? "/healthz" : "/metrics").status)
            mostHeld = max(mostHeld, try openDescriptors(of: service.child.processIdentifier))
        }
        let stopped = service.stop()

        #expect(statuses == Array(repeating: 200, count: probes))
        // The service held the trickling connections (each one a descriptor of its own) while it
        // answered: they were not left waiting in the kernel's queue.
        #expect(mostHeld > attackers, "at most \(mostHeld) descriptors open")
        #expect(stopped == 0, "\(service.diagnostics)")
    }
}

extension ServeLiveTests {
    /// Under an open-file limit too low for the default connection limit, `serve` says so and
    /// keeps to the connections that fit beside the ledger's files, rather than let connections
    /// take the descriptors the ledger needs to write.
    @Test func anOpenFileLimitTooLowForTheConnectionLimitLowersItAndSaysSo() throws {
        let service = try LiveService(launcher: TipledgerProcess.underOpenFileLimit(512))
        let health = try service.connect().exchange("GET", "/healthz")
        let stopped = service.stop()

        #expect(health.status == 200)
        #expect(stopped == 0, "\(service.diagnostics)")
        // 64 descriptors and 8 per worker thread (one per core) are kept for the rest.
        let fitting = 512 - 64 - 8 * HTTPServerConfiguration.defaultWorkerThreads
        let note = service.child.errors.lines.first { $0.contains("open-file limit") }
        #expect(
            note
                == "the open-file limit leaves room for \(fitting) connections, not the 4096 of --connection-limit; "
                + "serving at most \(fitting) (raise it with ulimit -n)")
    }
}

/// Raises this process's soft limit on open files to at least `needed` (within the hard limit),
/// so that a test holding many connections does not run out of descriptors.
func raiseOpenFileLimit(toAtLeast needed: Int) throws {
    var limit = rlimit()
    try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
    try #require(limit.rlim_max >= rlim_t(needed), "the hard limit on open files is \(limit.rlim_max)")
    guard limit.rlim_cur < rlim_t(needed) else { return }
    limit.rlim_cur = rlim_t(needed)
    try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
}

/// How many descriptors process `pid` has open (Linux's /proc).
func openDescriptors(of pid: Int32) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
}
