// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization
import TipLedgerHTTP

/// What a live test server saw: the requests its handler received and its access-log entries,
/// collected from the server's worker threads.
final class Recorder: Sendable {
    private let requestsSeen = Mutex<[HTTPRequest]>([])
    private let entriesSeen = Mutex<[AccessLogEntry]>([])

    func record(_ request: HTTPRequest) { requestsSeen.withLock { $0.append(request) } }
    func log(_ entry: AccessLogEntry) { entriesSeen.withLock { $0.append(entry) } }

    var requests: [HTTPRequest] { requestsSeen.withLock { $0 } }
    var entries: [AccessLogEntry] { entriesSeen.withLock { $0 } }
}

/// A handler for live tests, chosen by path:
/// `/echo` answers 200 with the request body; `/status/N` answers the error shape with status N;
/// `/hold` signals `entered` and waits (bounded) for `release`; anything else answers 200 with
/// `METHOD PATH`.
struct TestHandler: Sendable {
    let recorder = Recorder()
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        recorder.record(request)
        if request.path == "/echo" {
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
        }
        if request.path.hasPrefix("/status/"), let status = Int(request.path.dropFirst("/status/".count)) {
            return .error(status: status, code: "test_status", message: "status \(status) as asked")
        }
        if request.path == "/hold" {
            entered.signal()
            guard release.wait(timeout: .now() + 60) == .success else {
                return .error(status: 500, code: "test_timeout", message: "never released")
            }
            return .text("released")
        }
        return .text("\(request.method) \(request.path)")
    }
}

/// A live server for a test: 127.0.0.1, a port the kernel chooses, `TestHandler`, and what the
/// handler and the access log saw. Stop it when the test ends (`defer { live.stop() }`);
/// stopping also waits until every answered request is in `entries`.
final class LiveTestServer: Sendable {
    let handler = TestHandler()
    let server: HTTPServer

    /// Starts serving, after `adjust` edits the default configuration.
    init(_ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        var configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(host: "127.0.0.1", port: 0))
        adjust(&configuration)
        server = try HTTPServer(configuration: configuration, accessLog: handler.recorder.log, handler: handler.respond)
    }

    var port: UInt16 { server.port }
    var configuration: HTTPServerConfiguration { server.configuration }
    /// The requests the handler received.
    var requests: [HTTPRequest] { handler.recorder.requests }
    /// The access-log entries so far.
    var entries: [AccessLogEntry] { handler.recorder.entries }

    /// A new connection to the server; each read on it waits at most `receiveTimeout`.
    func connect(receiveTimeout: Duration = LoopbackConnection.defaultReceiveTimeout) throws -> LoopbackConnection {
        try LoopbackConnection(port: port, receiveTimeout: receiveTimeout)
    }

    /// Stops the server (see `HTTPServer.stop`): true when every request in flight finished.
    @discardableResult
    func stop(gracePeriod: Duration = .seconds(10)) -> Bool {
        server.stop(gracePeriod: gracePeriod)
    }
}

/// Runs `body(index)` on `count` new threads at once; true when all finished within `timeout`.
func runOnThreads(_ count: Int, timeout: Duration = .seconds(60), _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    return group.wait(timeout: .now() + .seconds(Int(timeout.components.seconds))) == .success
}

/// Runs `body` on a new thread and returns at once.
func startThread(_ body: @escaping @Sendable () -> Void) {
    Thread { body() }.start()
}

extension DispatchSemaphore {
    /// Waits at most `seconds`; true when signalled in time.
    func wait(seconds: Int) -> Bool { wait(timeout: .now() + .seconds(seconds)) == .success }
}
