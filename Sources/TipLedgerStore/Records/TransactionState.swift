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

extension TransactionState {
    /// The state the schema gives a row: its generated `state` column (migration 0001), where
    /// revoked comes before refunded, and both before finished. The writer uses it to know a
    /// row's state without reading the row back; a test holds it to the schema's.
    init(revoked: Bool, refunded: Bool, finished: Bool) {
        self = revoked ? .revoked : refunded ? .refunded : finished ? .finished : .pending
    }
}
