// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Records an App Store Server Notification (docs/ledger.md): once per `notificationUUID`,
/// with its evidence, the signed transaction info it carries applied, the event its type
/// leaves, and what applying it did. Works inside the open write transaction.
struct NotificationRecorder {
    let database: Database
    /// The time of recording, milliseconds since 1970.
    let now: Int64
    let evidence: EvidenceStore
    let transactions: TransactionApplier
    let consumptionRequests: ConsumptionRequestTracker

    private var events: EventLog { transactions.events }

    func record(_ notification: VerifiedNotification) throws -> RecordResult {
        let uuid = notification.notificationUUID.lowercased()
        let nestedId = notification.transaction?.transactionId
        let environment = notification.environment
        func result(_ outcome: RecordResult.Outcome, transactionId: String?) throws -> RecordResult {
            let current = try transactionId.flatMap { try transactions.amounts(environment.rawValue, $0) }
            return RecordResult(
                outcome: outcome, transactionId: transactionId, state: current?.state, finished: current?.finished)
        }
        if let existing = try database.queryOne(
            "SELECT transaction_id FROM notifications WHERE notification_uuid = ?", uuid, row: { $0.text(0) })
        {
            try evidence.adoptVerdict(notification.evidence.digest, context: notification.context)
            return try result(.duplicate, transactionId: existing ?? nestedId)
        }
        let nestedRow: TransactionAmounts?
        do {
            nestedRow = try notification.transaction.flatMap(transactions.existingRow(of:))
        } catch let rejection as VerificationError {
            throw rejection.within("data.signedTransactionInfo")
        }
        let stored = try evidence.storeEvidence(
            notification.evidence, kind: "notification", environment: environment,
            bundleId: notification.payload.claimedIdentity.bundleId, signedDate: notification.payload.signedDate,
            transactionId: nestedId, notificationUUID: notification.notificationUUID, context: notification.context)
        let type = NotificationType(rawValue: notification.rawNotificationType)

        var effect = try applyNestedTransaction(of: notification, type: type, uuid: uuid, row: nestedRow)
        switch type {
        // A request is about a transaction: without one (Apple's always carry it), the
        // notification leaves only the event any other type leaves.
        case .consumptionRequest where nestedId != nil:
            try events.append(
                "consumption_requested", environment, nestedId, source: uuid,
                detail: notification.payload.data?.rawConsumptionRequestReason)
            if !effect.changed { effect = Effect(name: "consumption_requested", changed: true) }
        case .refundDeclined:
            try events.append("refund_declined", environment, nestedId, source: uuid, detail: nil)
        default:
            // Any other type leaves an event of its own, unless applying its transaction did.
            if !effect.changed {
                try events.append(
                    "notification", environment, nestedId, source: uuid,
                    detail: [notification.rawNotificationType, notification.payload.rawSubtype].compactMap { $0 }
                        .joined(separator: "/"))
            }
        }

        try database.run(
            """
            INSERT INTO notifications (notification_uuid, environment, notification_type, subtype, signed_date_ms,
                transaction_id, evidence_id, effect, received_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, uuid, environment.rawValue, notification.rawNotificationType, notification.payload.rawSubtype,
            notification.payload.signedDate?.wholeMilliseconds, nestedId, stored.id, effect.name, now)
        if type == .consumptionRequest, let nestedId {
            // After the notification row, which the request references.
            try consumptionRequests.open(notification, uuid: uuid, transactionId: nestedId)
        }
        return try result(effect.changed ? .applied : .recorded, transactionId: nestedId)
    }

    /// What applying a notification did: its `name` is kept as the notification's effect, and
    /// `changed` tells whether the ledger changed (the notification was applied).
    private struct Effect {
        let name: String
        let changed: Bool

        static let acknowledged = Effect(name: "acknowledged", changed: false)
    }

    /// Stores and applies the notification's signed transaction info, if it has any: a
    /// refund-related type or ONE_TIME_CHARGE records a transaction never seen before, and any
    /// type's newer information updates a known one. `row` is its transaction's row
    /// (`TransactionApplier.existingRow(of:)`).
    private func applyNestedTransaction(
        of notification: VerifiedNotification, type: NotificationType?, uuid: String, row: TransactionAmounts?
    ) throws -> Effect {
        guard let nested = notification.transaction else { return .acknowledged }
        let nestedEvidence = try evidence.storeEvidence(
            nested.evidence, kind: "transaction", environment: nested.environment,
            bundleId: nested.payload.bundleId, signedDate: nested.payload.signedDate,
            transactionId: nested.transactionId, notificationUUID: uuid, context: nested.context)
        let mayInsert = [.refund, .refundReversed, .revoke, .oneTimeCharge].contains(type)
        // Signed transaction info without a signedDate is as new as the notification that
        // carries it: the App Store's state when it signed that. Undated too, it shows no time
        // and counts as the oldest, as a transaction the app submits undated does.
        let undatedAt = notification.payload.signedDate?.wholeMilliseconds ?? 0
        let (change, _) = try transactions.apply(
            nested, undatedAt: undatedAt, before: row, evidenceId: nestedEvidence.id, source: uuid,
            revokes: type == .revoke, mayInsert: mayInsert)
        switch change {
        case .inserted(let event): return Effect(name: "recorded_\(event)", changed: true)
        case .updated(let event): return Effect(name: event, changed: true)
        case .stale: return Effect(name: "stale", changed: false)
        case .unchanged, .unknown: return .acknowledged
        }
    }
}
