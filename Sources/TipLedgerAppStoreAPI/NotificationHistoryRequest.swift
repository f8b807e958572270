// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// What Get Notification History returns: the notifications sent between two dates, optionally
/// only those of one type or one transaction, or only those that failed.
///
/// Apple keeps 180 days of history in production and 30 in the sandbox; a `startDate` older than
/// that is refused (`StartDateTooFarInPastError`). One filter at most: a transaction or a type.
/// See <https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest>.
public struct NotificationHistoryRequest: Sendable, Equatable {
    /// The earliest send date included (whole milliseconds are sent).
    public var startDate: AppleDate
    /// The end of the window, excluded; Apple treats a future one as now.
    public var endDate: AppleDate
    /// Only notifications of this `notificationType` (e.g. `ONE_TIME_CHARGE`).
    public var notificationType: String?
    /// Only notifications of this subtype; needs `notificationType`.
    public var notificationSubtype: String?
    /// Only notifications about the transaction with this id (any transaction of the customer).
    public var transactionId: String?
    /// Only notifications that never reached the server, and those still being retried.
    public var onlyFailures: Bool = false

    public init(startDate: AppleDate, endDate: AppleDate) {
        self.startDate = startDate
        self.endDate = endDate
    }

    /// The JSON body; absent filters and a false `onlyFailures` are left out, as Apple's
    /// libraries do.
    ///
    /// - Throws: `invalidRequest` for filters Apple refuses together, or dates in the wrong order.
    func body() throws(AppStoreAPIError) -> [UInt8] {
        guard startDate <= endDate else {
            throw AppStoreAPIError(.invalidRequest, "the history's start \(startDate) is after its end \(endDate)")
        }
        guard transactionId == nil || notificationType == nil else {
            throw AppStoreAPIError(
                .invalidRequest, "a notification history filters by a transaction or by a type, not both")
        }
        guard notificationSubtype == nil || notificationType != nil else {
            throw AppStoreAPIError(.invalidRequest, "a notification subtype needs its notification type")
        }
        var writer = JSONWriter()
        writer.object { fields in
            fields.field("startDate", startDate.wholeMilliseconds)
            fields.field("endDate", endDate.wholeMilliseconds)
            fields.optionalField("notificationType", notificationType)
            fields.optionalField("notificationSubtype", notificationSubtype)
            fields.optionalField("transactionId", transactionId)
            if onlyFailures { fields.field("onlyFailures", true) }
        }
        return writer.bytes
    }
}
