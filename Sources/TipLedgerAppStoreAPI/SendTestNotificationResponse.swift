// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The answer of Request a Test Notification: the token to ask about its delivery with.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/sendtestnotificationresponse>.
public struct SendTestNotificationResponse: Sendable, Equatable {
    public let testNotificationToken: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        testNotificationToken = try reader.string("testNotificationToken")
    }
}
