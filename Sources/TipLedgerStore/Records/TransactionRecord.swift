// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A transaction as the ledger holds it.
public struct TransactionRecord: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    public let transactionId: String
    public let originalTransactionId: String?
    public let appTransactionId: String?
    public let account: String?
    public let productId: String
    public let purchaseDateMilliseconds: Int64?
    public let quantity: Int64
    /// Whole purchase, milliunits.
    public let priceMilli: Int64?
    public let currency: String?
    public let storefront: String?
    public let state: TransactionState
    public let finishedMilliseconds: Int64?
    public let revocationDateMilliseconds: Int64?
    public let revocationReason: Int64?
    /// What the transaction adds to net: price less refunds and revocations, milliunits.
    public let netMilli: Int64

    public var finished: Bool { finishedMilliseconds != nil }
}
