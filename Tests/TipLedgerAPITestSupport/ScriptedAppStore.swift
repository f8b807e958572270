// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerCore

/// What the fake App Store Server API knows, and how it answers from it as Apple does: the
/// app's notification history by send date in pages of 20, customers' transaction and refund
/// histories in scripted pages, single transactions, orders and test notifications.
///
/// Install it with `FakeAppStoreServer.respond(store.respond)`; tests add to it at any time.
public final class ScriptedAppStore: Sendable {
    /// One notification in the history.
    public struct Notification: Sendable {
        public let signedPayload: String
        /// When Apple sent it, milliseconds since 1970: the history's windows select by it.
        public let sentAt: Int64
        /// Whether its delivery failed (what `onlyFailures` asks for).
        public let failed: Bool

        public init(signedPayload: String, sentAt: Int64, failed: Bool = false) {
            self.signedPayload = signedPayload
            self.sentAt = sentAt
            self.failed = failed
        }
    }

    private struct State {
        var notifications: [Notification] = []
        /// Pages of signed transactions by the transaction id they are asked with.
        var transactionHistories: [String: [[String]]] = [:]
        var refundHistories: [String: [[String]]] = [:]
        var transactions: [String: String] = [:]
        var orders: [String: [String]] = [:]
        /// Test notification tokens, with the status polls left before Apple has tried.
        var testNotifications: [String: Int] = [:]
        var testAttemptResult = "SUCCESS"
        var testPayload: String?
    }

    private let state = Mutex(State())

    /// Notifications per page, as Apple's.
    public static let pageSize = 20

    public init() {}

    public func add(_ notifications: [Notification]) {
        state.withLock { $0.notifications += notifications }
    }

    /// `pages` of the customer asked about by `transactionId` (Get Transaction History).
    public func setTransactionHistory(_ transactionId: String, pages: [[String]]) {
        state.withLock { $0.transactionHistories[transactionId] = pages }
    }

    /// `pages` of refunded transactions (Get Refund History).
    public func setRefundHistory(_ transactionId: String, pages: [[String]]) {
        state.withLock { $0.refundHistories[transactionId] = pages }
    }

    /// A transaction Get Transaction Info answers with.
    public func setTransaction(_ transactionId: String, _ signed: String) {
        state.withLock { $0.transactions[transactionId] = signed }
    }

    /// An order Look Up Order ID answers with.
    public func setOrder(_ orderId: String, _ signed: [String]) {
        state.withLock { $0.orders[orderId] = signed }
    }

    /// How test notifications go: the payload shown and the result of Apple's one attempt.
    public func setTestNotification(payload: String?, result: String = "SUCCESS") {
        state.withLock {
            $0.testPayload = payload
            $0.testAttemptResult = result
        }
    }

    /// The answer to `request`.
    @Sendable public func respond(_ request: FakeRequest) -> FakeReply {
        switch request.endpoint {
        case .getNotificationHistory: notificationHistory(request)
        case .getTransactionHistory:
            pages(request, \.transactionHistories) { signed, revision, hasMore in
                let body = Self.json { object in
                    object.field("revision", revision)
                    object.field("hasMore", hasMore)
                    object.field("bundleId", "com.example")
                    object.field("environment", "Production")
                    object.stringArray("signedTransactions", signed)
                }
                return .json(body)
            }
        case .getRefundHistory:
            pages(request, \.refundHistories) { signed, revision, hasMore in
                .json(
                    Self.json { object in
                        object.stringArray("signedTransactions", signed)
                        object.field("revision", revision)
                        object.field("hasMore", hasMore)
                    })
            }
        case .getTransactionInfo:
            state.withLock { $0.transactions[request.parameter ?? ""] }.map { signed in
                .json(Self.json { $0.field("signedTransactionInfo", signed) })
            } ?? .appleError(status: 404, code: 4_040_010, message: "Transaction id not found.")
        case .lookUpOrderId:
            state.withLock { $0.orders[request.parameter ?? ""] }.map { signed in
                .json(
                    Self.json { object in
                        object.field("status", 0)
                        object.stringArray("signedTransactions", signed)
                    })
            } ?? .json(#"{"status":1}"#)
        case .sendConsumptionInformation: .empty(status: 202)
        case .requestTestNotification:
            .json(
                Self.json { object in
                    let token = state.withLock { state in
                        let token = "test-notification-\(state.testNotifications.count + 1)"
                        state.testNotifications[token] = 1
                        return token
                    }
                    object.field("testNotificationToken", token)
                })
        case .getTestNotificationStatus: testNotificationStatus(request.parameter ?? "")
        }
    }

    /// Notifications sent in the body's window (failed ones only when asked), by send date, a
    /// page of `pageSize` after the offset the token names. A token names its window too: one
    /// sent with another window is refused, as Apple refuses a token of another request.
    private func notificationHistory(_ request: FakeRequest) -> FakeReply {
        guard case .integer(let start)? = request.body?["startDate"], case .integer(let end)? = request.body?["endDate"]
        else { return .appleError(status: 400, code: 4_000_000, message: "Bad dates.") }
        let onlyFailures = request.body?["onlyFailures"] == .bool(true)
        let window = "\(start)-\(end)-\(onlyFailures ? 1 : 0)"
        var offset = 0
        if let token = request.query["paginationToken"] {
            let parts = token.split(separator: "_")
            guard parts.count == 2, parts[0] == window, let given = Int(parts[1]) else {
                return .appleError(status: 400, code: 4_000_014, message: "Invalid pagination token.")
            }
            offset = given
        }
        let selected = state.withLock { $0.notifications }.filter {
            $0.sentAt >= start && $0.sentAt < end && (!onlyFailures || $0.failed)
        }.sorted { $0.sentAt < $1.sentAt }
        let page = selected.dropFirst(offset).prefix(Self.pageSize)
        let next = offset + page.count
        let hasMore = next < selected.count
        return .json(
            Self.json { object in
                if hasMore { object.field("paginationToken", "\(window)_\(next)") }
                object.field("hasMore", hasMore)
                object.array("notificationHistory", Array(page)) { item, notification in
                    item.field("signedPayload", notification.signedPayload)
                    item.array("sendAttempts", [notification.failed ? "NO_RESPONSE" : "SUCCESS"]) { attempt, result in
                        attempt.field("attemptDate", notification.sentAt)
                        attempt.field("sendAttemptResult", result)
                    }
                }
            })
    }

    /// The scripted page a `revision` asks for: `rev-N` is page N (0-based); the revision after
    /// the last page asks for what changed since, which is nothing.
    private func pages(
        _ request: FakeRequest, _ table: KeyPath<State, [String: [[String]]]>,
        reply: ([String], String, Bool) -> FakeReply
    ) -> FakeReply {
        guard let pages = state.withLock({ $0[keyPath: table][request.parameter ?? ""] }) else {
            return .appleError(status: 404, code: 4_040_010, message: "Transaction id not found.")
        }
        var index = 0
        if let revision = request.query["revision"] {
            guard revision.hasPrefix("rev-"), let given = Int(revision.dropFirst(4)), given <= pages.count else {
                return .appleError(status: 400, code: 4_000_005, message: "Invalid request revision.")
            }
            index = given
        }
        let signed = index < pages.count ? pages[index] : []
        let next = min(index + 1, pages.count)
        return reply(signed, "rev-\(next)", index + 1 < pages.count)
    }

    /// 404 `TestNotificationNotFoundError` for the token's first poll, then Apple's attempt.
    private func testNotificationStatus(_ token: String) -> FakeReply {
        let (pollsLeft, result, payload) = state.withLock { state in
            let left = state.testNotifications[token]
            if let left, left > 0 { state.testNotifications[token] = left - 1 }
            return (left, state.testAttemptResult, state.testPayload)
        }
        guard let pollsLeft else {
            return .appleError(status: 400, code: 4_000_020, message: "Invalid test notification token.")
        }
        guard pollsLeft == 0 else {
            return .appleError(status: 404, code: 4_040_008, message: "Test notification not found.")
        }
        return .json(
            Self.json { object in
                object.field("signedPayload", payload)
                object.array("sendAttempts", [result]) { attempt, result in
                    attempt.field("attemptDate", LiveTestChain.now)
                    attempt.field("sendAttemptResult", result)
                }
            })
    }

    private static func json(_ body: (inout JSONWriter.ObjectWriter) -> Void) -> String {
        var writer = JSONWriter()
        writer.object(body)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
