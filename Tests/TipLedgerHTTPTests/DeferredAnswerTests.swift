// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerHTTP

/// Answers given later (`HTTPAnswer.later`): the connection waits without its worker, and the
/// answer goes out once given, or the server stops without waiting for it.
@Suite struct DeferredAnswerTests {
    /// The answers of `/later` requests not given yet, in the order they came.
    final class Outstanding: Sendable {
        let answers = Mutex<[DeferredResponse]>([])
        let arrived = DispatchSemaphore(value: 0)
    }

    /// A server with one worker whose `/later` requests are answered when the test says.
    final class LaterServer: Sendable {
        let server: HTTPServer
        let outstanding = Outstanding()

        init() throws {
            var configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(parsing: "127.0.0.1:0"))
            configuration.workerThreads = 1
            let outstanding = outstanding
            server = try HTTPServer(configuration: configuration) { request in
                guard request.path == "/later" else { return .now(.text("now")) }
                let deferred = DeferredResponse()
                outstanding.answers.withLock { $0.append(deferred) }
                outstanding.arrived.signal()
                return .later(deferred)
            }
        }

        /// Waits (at most a minute) until a `/later` request reached the answerer; its answer.
        func nextLater() -> DeferredResponse? {
            guard outstanding.arrived.wait(timeout: .now() + 60) == .success else { return nil }
            return outstanding.answers.withLock { $0.removeFirst() }
        }
    }

    @Test func aLaterAnswerGoesOutOnceGivenAndTheWorkerServesOthersMeanwhile() throws {
        let later = try LaterServer()
        defer { later.server.stop() }
        let waiting = try LoopbackConnection(port: later.server.port)
        try waiting.sendRequest("GET", "/later")
        let deferred = try #require(later.nextLater())

        // The one worker is free while the first connection waits.
        let other = try LoopbackConnection(port: later.server.port).exchange("GET", "/now")
        #expect(other.bodyText == "now")

        deferred.answer { .text("later") }
        let answered = try waiting.readResponse()
        #expect(answered.status == 200)
        #expect(answered.bodyText == "later")
        // The connection goes on as usual.
        #expect(try waiting.exchange("GET", "/now").bodyText == "now")
    }

    @Test func stoppingWhileAnAnswerIsOutstandingNeitherHangsNorSendsItLater() throws {
        let later = try LaterServer()
        let waiting = try LoopbackConnection(port: later.server.port)
        try waiting.sendRequest("GET", "/later")
        let deferred = try #require(later.nextLater())

        #expect(later.server.stop(gracePeriod: .zero) == false)
        // Given after the server stopped, the answer goes nowhere.
        deferred.answer { .text("too late") }
        let after = Result { () throws(LoopbackError) in try waiting.readResponse() }
        if case .success(let response) = after {
            #expect(response.status == 503)
            #expect(response.headers["Retry-After"] == "1")
        }
    }
}
