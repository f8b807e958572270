// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The header and body deadlines on a clock the test sets: each phase of a connection is cut
/// once its own deadline has passed, and never while the handler runs.
@Suite struct RequestDeadlinesTests {
    /// Sweeps only when a test calls `sweep(now:)`.
    let deadlines = RequestDeadlines(headers: .seconds(10), body: .seconds(30), sweepInterval: .seconds(86_400))
    let start = ContinuousClock.now
    let tick = Duration.nanoseconds(1)

    /// A connected pair of sockets: the server's end, watched by the deadlines, and the
    /// client's, which sees the server's end shut.
    final class SocketPair {
        let server: Int32
        let client: Int32
        /// A stand-in for libmicrohttpd's connection handle: only compared, never followed.
        let connection: OpaquePointer

        init(_ number: Int) throws {
            var ends: [Int32] = [-1, -1]
            #if canImport(Glibc)
                let type = Int32(SOCK_STREAM.rawValue)
            #else
                let type = SOCK_STREAM
            #endif
            try #require(socketpair(AF_UNIX, type, 0, &ends) == 0)
            (server, client) = (ends[0], ends[1])
            connection = try #require(OpaquePointer(bitPattern: 0x1000 * number))
        }

        deinit {
            close(server)
            close(client)
        }

        /// Whether the server's end was shut: the client then reads the end of the stream.
        var isShut: Bool {
            var byte: UInt8 = 0
            return recv(client, &byte, 1, Int32(MSG_DONTWAIT)) == 0
        }
    }

    @Test func aConnectionWaitingForHeadersIsCutOnceTheHeaderDeadlinePassed() throws {
        let pair = try SocketPair(1)
        deadlines.opened(pair.connection, socket: pair.server, at: start)

        #expect(deadlines.sweep(now: start + .seconds(10)) == 0)
        #expect(!pair.isShut)
        #expect(deadlines.sweep(now: start + .seconds(10) + tick) == 1)
        #expect(pair.isShut)
        #expect(deadlines.sweep(now: start + .seconds(20)) == 0, "a connection is shut once")
    }

    @Test func aBodyHasTheBodyDeadlineFromWhenItsHeadersArrived() throws {
        let pair = try SocketPair(1)
        deadlines.opened(pair.connection, socket: pair.server, at: start)
        deadlines.headersArrived(pair.connection, at: start + .seconds(9))

        #expect(deadlines.sweep(now: start + .seconds(39)) == 0)
        #expect(deadlines.sweep(now: start + .seconds(39) + tick) == 1)
        #expect(pair.isShut)
    }

    @Test func theHandlersTimeIsNotCounted() throws {
        let pair = try SocketPair(1)
        deadlines.opened(pair.connection, socket: pair.server, at: start)
        deadlines.headersArrived(pair.connection, at: start)
        deadlines.requestArrived(pair.connection)

        #expect(deadlines.sweep(now: start + .seconds(86_400)) == 0)
        #expect(!pair.isShut)
    }

    /// A kept-alive connection waits for each next request's headers from when the last
    /// request ended, not from when it opened.
    @Test func eachRequestsEndStartsTheHeaderDeadlineAgain() throws {
        let pair = try SocketPair(1)
        deadlines.opened(pair.connection, socket: pair.server, at: start)
        var ended = start
        for request in 1...3 {
            // The headers come within their deadline; the handler takes a minute.
            let arrived = ended + .seconds(9)
            #expect(deadlines.sweep(now: arrived) == 0, "request \(request)")
            deadlines.headersArrived(pair.connection, at: arrived)
            deadlines.requestArrived(pair.connection)
            ended = arrived + .seconds(60)
            deadlines.requestEnded(pair.connection, at: ended)
        }

        #expect(deadlines.sweep(now: ended + .seconds(10)) == 0)
        #expect(!pair.isShut)
        #expect(deadlines.sweep(now: ended + .seconds(10) + tick) == 1)
        #expect(pair.isShut)
    }

    @Test func onlyTheLateConnectionIsCutAndAClosedOneIsForgotten() throws {
        let (late, fresh, closed) = (try SocketPair(1), try SocketPair(2), try SocketPair(3))
        deadlines.opened(late.connection, socket: late.server, at: start)
        deadlines.opened(fresh.connection, socket: fresh.server, at: start + .seconds(5))
        deadlines.opened(closed.connection, socket: closed.server, at: start)
        deadlines.closed(closed.connection)

        #expect(deadlines.sweep(now: start + .seconds(11)) == 1)
        #expect(late.isShut)
        #expect(!fresh.isShut)
        #expect(!closed.isShut)
    }
}
