// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// The time and the waiting of the App Store Server API client: the system's by default; in
/// tests, a manual clock whose `sleep` moves its `now`, so that retries, rate limits and
/// `Retry-After` are checked without real waiting.
///
/// `now` dates each bearer token (`iat`) and is compared with Apple's `Retry-After`, an
/// absolute time. `sleep` blocks the calling thread; the client calls it only between requests.
public struct APIClock: Sendable {
    /// Where the time comes from.
    public let wallClock: WallClock
    private let sleeper: @Sendable (Duration) -> Void

    public init(wallClock: WallClock, sleep: @escaping @Sendable (Duration) -> Void) {
        self.wallClock = wallClock
        self.sleeper = sleep
    }

    /// The current time.
    public func now() -> AppleDate { wallClock.now() }

    /// Blocks the calling thread for `duration` (by this clock's measure).
    public func sleep(for duration: Duration) {
        sleeper(duration)
    }

    /// The system's real-time clock, and `nanosleep` (resumed when a signal interrupts it).
    public static let system = APIClock(wallClock: .system) { duration in
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}
