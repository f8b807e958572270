// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The consumption requests Apple sends (CONSUMPTION_REQUEST notifications): each is opened
/// with its deadline when it arrives, and stays open until the deadline passes or Apple
/// decides the refund it was about (docs/ledger.md).
struct ConsumptionRequestTracker {
    let database: Database
    /// The time of recording or of the query, milliseconds since 1970.
    let now: Int64

    /// How long Apple waits for consumption information after a CONSUMPTION_REQUEST.
    static let responseWindowMilliseconds: Int64 = 12 * 3_600_000

    /// Opens the request `notification` makes about `transactionId`; its notification row,
    /// which the request references, must be written first.
    func open(_ notification: VerifiedNotification, uuid: String, transactionId: String) throws {
        let requested = notification.payload.signedDate?.wholeMilliseconds ?? now
        try database.run(
            """
            INSERT INTO consumption_requests
                (notification_uuid, environment, transaction_id, reason, requested_ms, deadline_ms)
            VALUES (?, ?, ?, ?, ?, ?)
            """, uuid, notification.environment.rawValue, transactionId,
            notification.payload.data?.rawConsumptionRequestReason, requested,
            requested + Self.responseWindowMilliseconds)
    }

    /// Whether Apple has decided the refund a consumption request (`request`) was about: a
    /// REFUND or REFUND_DECLINED for its transaction, signed no earlier than the request, is in
    /// the ledger (found through `notifications_by_transaction`, migration 0004). The request is
    /// then no longer open, deadline or not.
    static let decided = """
        EXISTS (
            SELECT 1 FROM notifications AS decision
            WHERE decision.environment = request.environment AND decision.transaction_id = request.transaction_id
                AND decision.notification_type IN ('REFUND', 'REFUND_DECLINED')
                AND coalesce(decision.signed_date_ms, decision.received_ms) >= request.requested_ms
        )
        """

    /// The requests still open now, soonest deadline first; only those of `environments` when
    /// given.
    func stillOpen(environments: [AppStoreEnvironment]?) throws -> [ConsumptionRequest] {
        var conditions = ["deadline_ms > ?"]
        var values: [any SQLBindable] = [now]
        if let environment = Ledger.environmentCondition(environments) {
            conditions.append(environment.sql)
            values += environment.values
        }
        return try database.query(
            """
            SELECT environment, transaction_id, reason, deadline_ms FROM consumption_requests AS request
            WHERE \(conditions.joined(separator: " AND ")) AND NOT \(Self.decided)
            ORDER BY deadline_ms, transaction_id
            """, values
        ) { row in
            ConsumptionRequest(
                environment: AppStoreEnvironment(rawValue: row.text(0) ?? "") ?? .production,
                transactionId: row.text(1) ?? "", reason: row.text(2), deadlineMilliseconds: row.int64(3))
        }
    }
}
