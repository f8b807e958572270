// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// How far a walk through one of Apple's paged histories got: the walk under way, with the
/// cursor after the last page recorded, and for the app's notification history the time up to
/// which every notification was swept.
///
/// Kept in `sync_cursors` (migration 0005); saved with the records of each page
/// (`Ledger.record(_:finish:saving:)`), so a walk that stops anywhere resumes after the last
/// page whose records were committed.
public struct SyncCursor: Sendable, Equatable {
    /// Which history a walk goes through.
    public enum Walk: String, Sendable, CaseIterable {
        /// Get Notification History: the app's notifications in a window of send dates.
        case notificationHistory = "notification_history"
        /// Get Transaction History (v2): one customer's transactions.
        case transactionHistory = "transaction_history"
        /// Get Refund History (v2): one customer's refunded transactions.
        case refundHistory = "refund_history"
    }

    public let environment: AppStoreEnvironment
    public let walk: Walk
    /// Empty for the notification history; the transaction id a customer's walk was asked with.
    public let scope: String
    /// Whether a walk is under way (stopped before its last page, or still running).
    public var running: Bool
    /// The notification history's window of send dates: from (included) and until (excluded).
    public var windowStart: AppleDate?
    public var windowEnd: AppleDate?
    /// Whether the notification history walk asks only for notifications that failed to arrive.
    public var onlyFailures: Bool
    /// Apple's `paginationToken` or `revision` after the last page recorded; nil before the first.
    public var cursor: String?
    /// Pages recorded in the walk under way (or in the last one).
    public var pages: Int
    /// Every notification sent before this time was swept (notification history only).
    public var sweptUntil: AppleDate?
    /// When the last walk completed.
    public var completed: AppleDate?

    /// A walk not begun: no page recorded, nothing swept.
    public init(environment: AppStoreEnvironment, walk: Walk, scope: String = "") {
        self.environment = environment
        self.walk = walk
        self.scope = scope
        self.running = false
        self.onlyFailures = false
        self.pages = 0
    }
}
