// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// One notification in Apple's history: the signed payload as Apple sent it, and how its
/// delivery went.
///
/// The payload shows the state when it was sent, not now, and is unverified until the verifier
/// has checked it. See <https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem>.
public struct NotificationHistoryResponseItem: Sendable, Equatable {
    /// The notification's compact JWS (`ResponseBodyV2`'s `signedPayload`).
    public let signedPayload: String?
    /// Apple's delivery attempts, at most six.
    public let sendAttempts: [SendAttemptItem]

    init(_ reader: PayloadReader) throws(PayloadError) {
        signedPayload = try reader.string("signedPayload")
        sendAttempts = try SendAttemptItem.list("sendAttempts", of: reader)
    }
}
