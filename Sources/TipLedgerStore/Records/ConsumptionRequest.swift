// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A consumption request Apple is waiting on.
public struct ConsumptionRequest: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    public let transactionId: String
    public let reason: String?
    /// Milliseconds since 1970.
    public let deadlineMilliseconds: Int64
}
