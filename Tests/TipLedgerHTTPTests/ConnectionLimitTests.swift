// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// Live: the server's connection limit and a client's own.
@Suite struct ConnectionLimitTests {
    /// Deadlines an hour off: these tests are about the limits, and a test held up on a busy
    /// machine (seconds between two exchanges under `--parallel`) must not have the server cut
    /// an idle connection it goes on to use, at the 10-second header deadline.
    static let hour = 3600

    /// Two keep-alive connections to `live`, each proven accepted by a full exchange.
    func twoAcceptedConnections(to live: LiveTestServer) throws -> (LoopbackConnection, LoopbackConnection) {
        let first = try live.connect()
        let second = try live.connect()
        #expect(try first.exchange("GET", "/one").status == 200)
        #expect(try second.exchange("GET", "/two").status == 200)
        return (first, second)
    }

    @Test func connectionsOverTheLimitAreNotServedUntilOneCloses() throws {
        let live = try LiveTestServer {
            $0.workerThreads = 2
            $0.connectionLimit = 2
            $0.headerDeadlineSeconds = Self.hour
            $0.connectionTimeoutSeconds = Self.hour
        }
        defer { live.stop() }
        let (first, second) = try twoAcceptedConnections(to: live)

        // A third connection completes in the kernel's queue, but its request is not served,
        // not even once the server has answered another request sent after it.
        let third = try live.connect(receiveTimeout: .milliseconds(300))
        try third.sendRequest("GET", "/three")
        #expect(try second.exchange("GET", "/two-again").status == 200)
        #expect(third.probe() == .nothing)

        // Closing one frees a slot: the waiting connection is then accepted and answered.
        first.close()
        third.setReceiveTimeout(LoopbackConnection.defaultReceiveTimeout)
        let response = try third.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText == "GET /three")
        #expect(try second.exchange("GET", "/two-once-more").status == 200)
    }

    /// A client at its own limit has any further connection closed at once, while the server
    /// still has room for others; closing one of its connections lets it in again.
    @Test func aClientOverItsOwnLimitIsTurnedAwayAtOnce() throws {
        // One worker: it forgets a closed connection at the end of the loop turn that read its
        // end (libmicrohttpd's MHD_cleanup_connections), before it reads any later request.
        let live = try LiveTestServer {
            $0.workerThreads = 1
            $0.connectionLimit = 16
            $0.connectionsPerClient = 2
            $0.headerDeadlineSeconds = Self.hour
            $0.connectionTimeoutSeconds = Self.hour
        }
        defer { live.stop() }
        let (first, second) = try twoAcceptedConnections(to: live)
        // Open until the end: the client stays at its limit with `first` alone closed.
        defer { second.close() }

        let third = try live.connect()
        try? third.sendRequest("GET", "/three")
        #expect(third.waitForClose())

        first.close()
        // Two exchanges after the close, the second sent once the first was answered: the turn
        // that read the close is over by the time the second is read.
        #expect(try second.exchange("GET", "/two-again").status == 200)
        #expect(try second.exchange("GET", "/two-once-more").status == 200)
        #expect(try live.connect().exchange("GET", "/four").status == 200)
    }
}
