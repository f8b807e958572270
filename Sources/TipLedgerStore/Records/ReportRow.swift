// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// One row of a report: one environment, group and currency. Amounts in milliunits.
public struct ReportRow: Sendable, Equatable {
    public let environment: AppStoreEnvironment
    /// The group's value (product id, storefront, account, day, month); nil for `currency`
    /// grouping, or when the transactions lack the field.
    public let group: String?
    public let currency: String?
    public let transactions: Int64
    public let units: Int64
    public let grossMilli: Int64
    public let refundedMilli: Int64
    public let revokedMilli: Int64

    public var netMilli: Int64 { grossMilli - refundedMilli - revokedMilli }
}
