// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A page of Get Transaction History (v2): up to 20 signed transactions and the revision that
/// asks for the next page.
///
/// In ascending order Apple returns a transaction again, with its new state, when it changes
/// while the pages are read (a refund): a reader updates by `transactionId`. See
/// <https://developer.apple.com/documentation/appstoreserverapi/historyresponse>.
public struct HistoryResponse: Sendable, Equatable {
    /// Asks for the next page.
    public let revision: String?
    /// Whether another page follows (absent counts as false).
    public let hasMore: Bool
    public let bundleId: String?
    public let appAppleId: Int64?
    /// Raw `environment`, kept when it is not one tipledger knows.
    public let rawEnvironment: String?
    /// The transactions' compact JWS, unverified.
    public let signedTransactions: [String]

    init(_ reader: PayloadReader) throws(PayloadError) {
        revision = try reader.string("revision")
        hasMore = try reader.bool("hasMore") ?? false
        bundleId = try reader.string("bundleId")
        appAppleId = try reader.int64("appAppleId")
        rawEnvironment = try reader.string("environment")
        signedTransactions = try reader.strings("signedTransactions") ?? []
    }

    /// The environment, or nil when absent or unknown.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
}
