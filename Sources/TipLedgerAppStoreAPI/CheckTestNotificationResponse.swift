// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The answer of Get Test Notification Status: the test notification and Apple's attempts to
/// deliver it to the server's URL.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/checktestnotificationresponse>.
public struct CheckTestNotificationResponse: Sendable, Equatable {
    /// The test notification's compact JWS, unverified.
    public let signedPayload: String?
    public let sendAttempts: [SendAttemptItem]

    init(_ reader: PayloadReader) throws(PayloadError) {
        signedPayload = try reader.string("signedPayload")
        sendAttempts = try SendAttemptItem.list("sendAttempts", of: reader)
    }
}
