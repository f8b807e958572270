// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The answer of Look Up Order ID: whether the order id (from the customer's receipt e-mail)
/// is valid, and its signed transactions.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/orderlookupresponse>.
public struct OrderLookupResponse: Sendable, Equatable {
    /// Raw `status`: 0 valid, 1 invalid.
    public let rawStatus: Int32?
    /// The order's transactions' compact JWS, unverified; none for an invalid order.
    public let signedTransactions: [String]

    init(_ reader: PayloadReader) throws(PayloadError) {
        rawStatus = try reader.int32("status")
        signedTransactions = try reader.strings("signedTransactions") ?? []
    }

    /// Whether Apple found the order (`status` 0).
    public var isValid: Bool { rawStatus == 0 }
}
