// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// One account's tips in one environment and currency.
public struct SupporterRow: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    /// The appAccountToken, in lower case.
    public let account: String
    public let currency: String?
    /// Transactions, refunded ones included.
    public let transactions: Int64
    /// Gross minus refunded and revoked, in milliunits.
    public let netMilli: Int64
}
