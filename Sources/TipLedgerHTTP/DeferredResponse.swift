// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization

/// A response a handler gives later, from any thread: the server parks the connection without
/// holding a worker thread (libmicrohttpd suspends it) until `answer` is called, and a worker
/// then builds the response and sends it.
///
/// The response is built by the closure `answer` takes, on the worker that sends it, so a thread
/// that answers many requests in turn (the ledger's writer) spends nothing on their bodies.
public final class DeferredResponse: Sendable {
    private enum State {
        /// Not answered; `whenAnswered` may have left what to do once it is.
        case waiting(whenAnswered: (@Sendable () -> Void)?)
        case answered(@Sendable () -> HTTPResponse)
        /// The server stopped before the answer came: it sent 503 instead.
        case abandoned
    }

    private let state = Mutex(State.waiting(whenAnswered: nil))
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// Gives the answer; the first call counts, later ones are ignored. `make` runs once, on the
    /// thread that sends the response (or waits for it), and must not block.
    public func answer(_ make: @escaping @Sendable () -> HTTPResponse) {
        let action: (@Sendable () -> Void)?? = state.withLock { state in
            guard case .waiting(let whenAnswered) = state else { return .none }
            state = .answered(make)
            return .some(whenAnswered)
        }
        guard case .some(let whenAnswered) = action else { return }
        arrived.signal()
        whenAnswered?()
    }

    /// Gives the answer, a response already built.
    public func answer(_ response: HTTPResponse) {
        answer { response }
    }

    /// Blocks until the answer is given and returns the response: for a caller without a
    /// server (tests, or a handler called directly).
    public func wait() -> HTTPResponse {
        arrived.wait()
        arrived.signal()
        return response ?? Self.abandonedResponse
    }

    /// The response, built now, once answered or abandoned; nil before.
    var response: HTTPResponse? {
        switch state.withLock({ $0 }) {
        case .waiting: nil
        case .answered(let make): make()
        case .abandoned: Self.abandonedResponse
        }
    }

    /// Whether the server gave up waiting (it stopped) before the answer came.
    var isAbandoned: Bool {
        state.withLock { state in
            if case .abandoned = state { true } else { false }
        }
    }

    /// Runs `action` once the answer is given: at once when it was already.
    func whenAnswered(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard case .waiting = state else { return true }
            state = .waiting(whenAnswered: action)
            return false
        }
        if now { action() }
    }

    /// Gives up waiting (the server is stopping): a later `answer` is ignored, and the response
    /// becomes `abandonedResponse`. True when no answer had come.
    func abandon() -> Bool {
        let abandoned = state.withLock { state in
            guard case .waiting = state else { return false }
            state = .abandoned
            return true
        }
        if abandoned { arrived.signal() }
        return abandoned
    }

    /// What a request whose answer never came is told when the server stops.
    static let abandonedResponse = HTTPResponse.unavailable("the service is stopping; retry later")
}
