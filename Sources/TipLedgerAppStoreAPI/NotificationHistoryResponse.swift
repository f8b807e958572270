// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// A page of Get Notification History: up to 20 notifications and the token of the next page.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse>.
public struct NotificationHistoryResponse: Sendable, Equatable {
    /// Asks for the next page; a stored one resumes a sweep where it stopped.
    public let paginationToken: String?
    /// Whether another page follows (absent counts as false).
    public let hasMore: Bool
    public let notificationHistory: [NotificationHistoryResponseItem]

    init(_ reader: PayloadReader) throws(PayloadError) {
        paginationToken = try reader.string("paginationToken")
        hasMore = try reader.bool("hasMore") ?? false
        var items: [NotificationHistoryResponseItem] = []
        for item in try reader.objects("notificationHistory") ?? [] {
            items.append(try NotificationHistoryResponseItem(item))
        }
        notificationHistory = items
    }
}
