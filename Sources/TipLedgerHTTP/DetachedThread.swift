// SPDX-License-Identifier: GPL-3.0-or-later

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A thread of its own, not one of Dispatch's: for work that runs for the life of its owner
/// (waiting in `epoll_wait`, or taking jobs at a niceness of its own, which Linux keeps per
/// thread and Dispatch's shared threads must not get).
enum DetachedThread {
    /// What the thread runs, handed over through pthread's one pointer.
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a detached thread running `body`; false when none could be made.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let retained = Unmanaged.passRetained(Body(body))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
                // Takes back the +1 `start` gave the thread.
                guard let argument else { return nil }
                Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().run()
                return nil
            }, retained.toOpaque())
        guard created == 0 else {
            retained.release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
