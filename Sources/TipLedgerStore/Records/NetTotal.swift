// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// Net of a set of transactions in one environment and currency.
public struct NetTotal: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    public let currency: String?
    public let netMilli: Int64
}
