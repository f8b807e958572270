// SPDX-License-Identifier: GPL-3.0-or-later

/// Where a transaction stands. Refunded and revoked win over finished.
public enum TransactionState: String, Sendable, CaseIterable {
    /// Verified, not yet finished (delivered) by the app.
    case pending
    case finished
    case refunded
    /// Family Sharing access revoked.
    case revoked
}
