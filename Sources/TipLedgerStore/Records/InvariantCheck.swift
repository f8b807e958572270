// SPDX-License-Identifier: GPL-3.0-or-later

/// What `Ledger.brokenInvariants` checked, and what it found.
public struct InvariantCheck: Sendable {
    public let transactions: Int
    public let notifications: Int
    public let breaches: [InvariantBreach]
}
