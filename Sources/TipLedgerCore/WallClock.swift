// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials

/// The source of "now" for code that must not read the system clock itself.
///
/// The verifier uses it only for payloads without a `signedDate`; tests pass a fixed one.
public struct WallClock: Sendable {
    private let read: @Sendable () -> AppleDate

    public init(_ read: @escaping @Sendable () -> AppleDate) {
        self.read = read
    }

    /// The current time.
    public func now() -> AppleDate { read() }

    /// The system's real-time clock.
    public static let system = WallClock { AppleDate(Date()) }

    /// A clock that always says `date`.
    public static func fixed(_ date: AppleDate) -> WallClock { WallClock { date } }
}
