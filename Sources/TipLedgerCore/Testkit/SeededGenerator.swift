// SPDX-License-Identifier: GPL-3.0-or-later

/// A small, seedable random generator (SplitMix64), so testkit's `--seed` and the tests' seeds
/// reproduce their data exactly. Not for anything secret.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random version 4 UUID in lowercase text.
    public mutating func uuid() -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &self) }
        bytes[6] = bytes[6] & 0x0f | 0x40
        bytes[8] = bytes[8] & 0x3f | 0x80
        let hexText = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let characters = Array(hexText)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// A transaction id like the App Store's: 16 digits.
    public mutating func transactionId() -> String {
        String(UInt64.random(in: 2_000_000_000_000_000...2_999_999_999_999_999, using: &self))
    }
}
