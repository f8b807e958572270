// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization

/// A gate a fake's answers wait at until a test opens it: what holds a request in flight while
/// the test does something else (kills the client, checks that nothing waited for it). It opens
/// by itself after a minute, so a test that fails before opening it does not hang.
public final class RequestGate: Sendable {
    private let opened = Mutex(false)
    private let signal = DispatchSemaphore(value: 0)

    public init() {}

    /// Waits until the gate is open.
    public func pass() {
        guard !opened.withLock({ $0 }) else { return }
        _ = signal.wait(timeout: .now() + .seconds(60))
        signal.signal()
    }

    /// Lets every waiting and later request through.
    public func open() {
        opened.withLock { $0 = true }
        signal.signal()
    }

    /// Whether the gate was opened.
    public var isOpen: Bool { opened.withLock { $0 } }
}
