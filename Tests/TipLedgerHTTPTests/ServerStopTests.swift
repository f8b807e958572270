// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Live: how the server stops, with requests in flight, idle connections and clients still
/// coming.
@Suite struct ServerStopTests {
    @Test func stopLetsRequestsInFlightFinishThenRefusesConnections() throws {
        let live = try LiveTestServer()
        let port = live.port
        let held = Mutex<Result<LoopbackResponse, LoopbackError>?>(nil)
        let stopped = DispatchSemaphore(value: 0)
        let drained = Atomic<Bool>(false)

        // A request the handler holds until the test releases it.
        let clientDone = DispatchSemaphore(value: 0)
        startThread {
            let result = Result { () throws(LoopbackError) in
                try LoopbackConnection(port: port).exchange("GET", "/hold")
            }
            held.withLock { $0 = result }
            clientDone.signal()
        }
        #expect(live.handler.entered.wait(seconds: 60))

        startThread {
            drained.store(live.stop(gracePeriod: .seconds(60)), ordering: .relaxed)
            stopped.signal()
        }

        // New connections are refused as soon as the stop has begun…
        #expect(waitForRefusal(port: port, within: .seconds(60)))
        // …while the held request keeps the stop from finishing.
        #expect(stopped.wait(timeout: .now()) == .timedOut)

        live.handler.release.signal()
        #expect(clientDone.wait(seconds: 60))
        #expect(stopped.wait(seconds: 60))

        let response = try #require(held.withLock { $0 }).get()
        #expect(response.status == 200)
        #expect(response.bodyText == "released")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        let allDrained = drained.load(ordering: .relaxed)
        #expect(allDrained)
        #expect(throws: LoopbackError.connectFailed(ECONNREFUSED)) { _ = try LoopbackConnection(port: port) }
        #expect(live.entries.map(\.status) == [200])
    }

    /// An idle keep-alive connection is no request in flight: the stop drains at once rather
    /// than wait out its grace period, which would make it return false.
    @Test func stopDoesNotWaitForIdleKeepAliveConnectionsAndCanBeRepeated() throws {
        let live = try LiveTestServer()
        let port = live.port
        let idle = try live.connect()
        #expect(try idle.exchange("GET", "/").status == 200)

        #expect(live.stop(gracePeriod: .seconds(60)))
        #expect(live.stop())

        #expect(idle.probe() == .closed)
        #expect(throws: LoopbackError.connectFailed(ECONNREFUSED)) { _ = try LoopbackConnection(port: port) }
    }

    /// Stopping while clients connect, send whole requests and leave others half sent, again
    /// and again: every stop returns, and the process lives on (libmicrohttpd aborts the whole
    /// process when its listening socket is taken away from it the wrong way).
    @Test func stoppingUnderLoadAgainAndAgainEndsEveryTime() throws {
        for _ in 0..<20 {
            let live = try LiveTestServer { $0.workerThreads = 2 }
            let port = live.port
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
                #expect(answered.wait(seconds: 60))
            }
            connecting.store(false, ordering: .relaxed)
            live.stop(gracePeriod: .milliseconds(100))
            #expect(clients.wait(timeout: .now() + 60) == .success)
        }
    }
}

/// Connects until the kernel refuses (the server shut its listening socket), at most `within`
/// (a guard against hanging, not a speed limit); a connection that still succeeds is closed at
/// once, and one reset while the socket leaves the listening state counts as not refused yet.
func waitForRefusal(port: UInt16, within limit: Duration) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        do {
            _ = try LoopbackConnection(port: port)
        } catch .connectFailed(ECONNREFUSED) {
            return true
        } catch {
            continue
        }
    }
    return false
}
