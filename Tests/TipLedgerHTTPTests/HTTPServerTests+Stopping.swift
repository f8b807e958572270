// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerHTTP

extension HTTPServerTests {
    /// Stopping while clients connect, send whole requests and leave others half sent, again
    /// and again: every stop returns, and the process lives on (libmicrohttpd aborts the whole
    /// process when its listening socket is taken away from it the wrong way).
    @Test func stoppingUnderLoadAgainAndAgainEndsEveryTime() throws {
        for _ in 0..<20 {
            let server = try startTestServer { $0.workerThreads = 2 }
            let port = server.port
            // Cleared before the stop: a client then opens no new connection, which could reach
            // another test's server on the same port number once this one has let it go.
            let connecting = Atomic<Bool>(true)
            let answered = DispatchSemaphore(value: 0)
            let clients = DispatchGroup()
            for client in 0..<4 {
                clients.enter()
                startThread {
                    defer { clients.leave() }
                    var kept: [LoopbackConnection] = []
                    while connecting.load(ordering: .relaxed) {
                        guard let connection = try? LoopbackConnection(port: port) else { continue }
                        for _ in 0..<3 where (try? connection.exchange("GET", "/x"))?.status == 200 {
                            answered.signal()
                        }
                        // Some connections stay open with a request half sent.
                        if client % 2 == 0 && (try? connection.send("POST /echo HTTP/1.1\r\nHost: x\r\n")) != nil {
                            kept.append(connection)
                        }
                    }
                }
            }
            for _ in 0..<8 {
                #expect(answered.wait(seconds: 30))
            }
            connecting.store(false, ordering: .relaxed)
            server.stop(gracePeriod: .milliseconds(100))
            #expect(clients.wait(timeout: .now() + 60) == .success)
        }
    }
}
