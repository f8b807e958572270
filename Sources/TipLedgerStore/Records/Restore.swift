// SPDX-License-Identifier: GPL-3.0-or-later

/// An account's tips for `restore`.
public struct Restore: Sendable {
    public let transactions: [TransactionRecord]
    /// Per environment and currency, over all the account's transactions (refunds subtracted).
    public let totals: [NetTotal]
    /// The account's transactions not listed (refunded or revoked, unless all were asked for).
    public let unlisted: Int
}
