internal import Synchronization
// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A clock for tests that moves only when told to or when something sleeps on it, and keeps
/// the list of sleeps, so waiting is checked without real time passing.
public final class ManualClock: Sendable {
    private let state: Mutex<(milliseconds: Double, sleeps: [Duration])>

    public init(startingAt start: AppleDate) {
        state = Mutex((start.milliseconds, []))
    }

    /// The clock's time, as a `WallClock`.
    public var wallClock: WallClock { WallClock { [self] in now } }

    /// The current time.
    public var now: AppleDate { AppleDate(milliseconds: state.withLock { $0.milliseconds }) }

    /// Records `duration` and moves the clock on by it, at once.
    public func sleep(_ duration: Duration) {
        state.withLock { state in
            state.sleeps.append(duration)
            state.milliseconds += Self.milliseconds(duration)
        }
    }

    /// Moves the clock on by `duration` without recording a sleep.
    public func advance(by duration: Duration) {
        state.withLock { $0.milliseconds += Self.milliseconds(duration) }
    }

    /// Every sleep so far, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
