// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// How many accounts tipped a given number of times in one environment: 120 accounts tipped
/// once, 14 twice. Transactions without an account token are in no row.
public struct TipCountRow: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    /// Transactions per account, refunded ones included.
    public let tips: Int64
    public let accounts: Int64
}
