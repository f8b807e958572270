// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import TipLedgerAPITestSupport
import TipLedgerHTTP

/// A responder that holds every request at a gate, then answers 503: a certificate's responder
/// that hangs until a test lets it answer, counting the requests that reached it.
final class HeldResponder {
    let port: UInt16
    let gate = RequestGate()
    private let server: HTTPServer
    private let counted = Counter()

    private final class Counter: Sendable {
        let value = Mutex(0)
    }

    init() throws {
        var configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(host: "127.0.0.1", port: 0))
        // Requests past the first hold a worker each, so that each arrives (and is counted).
        configuration.workerThreads = 8
        let (gate, counted) = (gate, counted)
        server = try HTTPServer(configuration: configuration) { _ in
            counted.value.withLock { $0 += 1 }
            gate.pass()
            return HTTPResponse(status: 503)
        }
        port = server.port
    }

    deinit {
        gate.open()
        _ = server.stop(gracePeriod: .seconds(5))
    }

    /// Requests that reached the responder so far.
    var arrivals: Int { counted.value.withLock { $0 } }
}
