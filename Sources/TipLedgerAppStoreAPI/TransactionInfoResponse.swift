// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The answer of Get Transaction Info: one signed transaction, of any product type.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse>.
public struct TransactionInfoResponse: Sendable, Equatable {
    /// The transaction's compact JWS, unverified.
    public let signedTransactionInfo: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        signedTransactionInfo = try reader.string("signedTransactionInfo")
    }
}
