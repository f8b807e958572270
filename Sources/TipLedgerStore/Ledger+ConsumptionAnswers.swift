// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Ledger {
    /// Consumption requests, soonest deadline first: those whose deadline is after `now`, or
    /// every one with `includeAll`; only those of `environments` when given.
    public func consumptionRequests(
        now: AppleDate, includeAll: Bool = false, environments: [AppStoreEnvironment]? = nil
    ) throws -> [ConsumptionRequestRecord] {
        var conditions: [String] = []
        var values: [any SQLBindable] = []
        if !includeAll {
            conditions.append("request.deadline_ms > ?")
            values.append(now.wholeMilliseconds)
        }
        if let environments {
            conditions.append(
                "request.environment IN (\(environments.map { _ in "?" }.joined(separator: ", ")))")
            values += environments.map(\.rawValue)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try withReader { database in
            try database.query(
                """
                SELECT request.notification_uuid, request.environment, request.transaction_id, request.reason,
                    request.requested_ms, request.deadline_ms, tx.state, tx.finished_ms IS NOT NULL, tx.product_type,
                    \(ConsumptionRequestTracker.decided), answer.body, answer.sent_ms, answer.apple_status, answer.error, answer.answered_ms
                FROM consumption_requests AS request
                LEFT JOIN transactions AS tx
                    ON tx.environment = request.environment AND tx.transaction_id = request.transaction_id
                LEFT JOIN consumption_answers AS answer ON answer.notification_uuid = request.notification_uuid
                \(filter)
                ORDER BY request.deadline_ms, request.transaction_id, request.notification_uuid
                """, values
            ) { row in
                ConsumptionRequestRecord(
                    notificationUUID: row.text(0) ?? "",
                    environment: AppStoreEnvironment(rawValue: row.text(1) ?? "") ?? .production,
                    transactionId: row.text(2) ?? "", reason: row.text(3),
                    requested: AppleDate(wholeMilliseconds: row.int64(4)),
                    deadline: AppleDate(wholeMilliseconds: row.int64(5)),
                    state: row.text(6).flatMap(TransactionState.init(rawValue:)), finished: row.int64(7) == 1,
                    productType: row.text(8), decided: row.int64(9) == 1,
                    answer: row.text(10).map { body in
                        ConsumptionAnswer(
                            body: body, sent: AppleDate(wholeMilliseconds: row.int64(11)),
                            appleStatus: row.optionalInt64(12).map(Int.init), error: row.text(13),
                            answered: row.optionalInt64(14).map(AppleDate.init(wholeMilliseconds:)))
                    })
            }
        }
    }

    /// Claims the request `notificationUUID` for an answer with `body`, to be sent now: true
    /// when it may be sent, false when it may not (past its deadline, decided by Apple, answered
    /// already, or claimed by another sender whose claim has not lapsed).
    ///
    /// The claim lasts `claim`: a sender that dies before it records Apple's answer
    /// (`recordConsumptionAnswer`) leaves the request to be answered again once it lapsed.
    public func claimConsumptionAnswer(_ notificationUUID: String, body: String, claim: Duration) throws -> Bool {
        let now = clock.now().wholeMilliseconds
        let until = now + Int64(claim / .milliseconds(1))
        return try write { database in
            try database.writeTransaction {
                let open = try database.queryOne(
                    """
                    SELECT request.environment, request.transaction_id FROM consumption_requests AS request
                    LEFT JOIN consumption_answers AS answer ON answer.notification_uuid = request.notification_uuid
                    WHERE request.notification_uuid = ? AND request.deadline_ms > ? AND NOT \(ConsumptionRequestTracker.decided)
                        AND (answer.notification_uuid IS NULL
                            OR (answer.apple_status IS NULL AND answer.claimed_until_ms <= ?))
                    """, notificationUUID, now, now
                ) { ($0.text(0) ?? "", $0.text(1) ?? "") }
                guard let (environment, transactionId) = open else { return false }
                try database.run(
                    """
                    INSERT INTO consumption_answers (notification_uuid, environment, transaction_id, body, sent_ms,
                        claimed_until_ms, apple_status, error, answered_ms)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, NULL, NULL)
                    ON CONFLICT (notification_uuid) DO UPDATE SET body = ?4, sent_ms = ?5, claimed_until_ms = ?6,
                        apple_status = NULL, error = NULL, answered_ms = NULL
                    """, notificationUUID, environment, transactionId, body, now, until)
                return true
            }
        }
    }

    /// Records how the answer to `notificationUUID` went: Apple's `status` (202 accepted, or
    /// the status it refused it with), or nil when no answer came, which releases the claim so
    /// the request may be answered again before its deadline. `error` says what went wrong.
    public func recordConsumptionAnswer(_ notificationUUID: String, status: Int?, error: String?) throws {
        let now = clock.now().wholeMilliseconds
        try write { database in
            try database.writeTransaction {
                _ = try database.run(
                    """
                    UPDATE consumption_answers
                    SET apple_status = ?2, error = ?3, answered_ms = CASE WHEN ?2 IS NULL THEN NULL ELSE ?4 END,
                        claimed_until_ms = CASE WHEN ?2 IS NULL THEN ?4 ELSE claimed_until_ms END
                    WHERE notification_uuid = ?1
                    """, notificationUUID, status, error, now)
            }
        }
    }
}
