// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// A page of Get Refund History (v2): up to 20 refunded transactions, oldest refund first.
///
/// The last page's `revision`, stored, asks later for the refunds made since. See
/// <https://developer.apple.com/documentation/appstoreserverapi/refundhistoryresponse>.
public struct RefundHistoryResponse: Sendable, Equatable {
    /// The transactions' compact JWS, unverified.
    public let signedTransactions: [String]
    /// Asks for the next page.
    public let revision: String?
    /// Whether another page follows (absent counts as false).
    public let hasMore: Bool

    init(_ reader: PayloadReader) throws(PayloadError) {
        signedTransactions = try reader.strings("signedTransactions") ?? []
        revision = try reader.string("revision")
        hasMore = try reader.bool("hasMore") ?? false
    }
}
