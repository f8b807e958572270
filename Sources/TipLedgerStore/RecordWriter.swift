// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

/// The rules of SPEC section 4 for one verified payload, inside an open write transaction.
struct RecordWriter {
    let database: Database
    /// The time of recording, milliseconds since 1970.
    let now: Int64

    /// One result per item: its rejection (`VerificationError`), or another failure of the
    /// item alone.
    typealias Results = [Result<RecordResult, any Error>]
    /// One result per item, where the only failure is the item's rejection.
    typealias Rejections = [Result<RecordResult, VerificationError>]

    /// Records `items` (see `Ledger.record`) in a write transaction. A rejected item fails alone
    /// (`recordEach`). If an item fails otherwise, that transaction is undone and a second
    /// records them item by item, each in a savepoint, so the failure costs only that item. A
    /// failure of the transaction itself (busy past the timeout, disk full) is thrown as it is.
    func record(_ items: [VerifiedPayload], finish: Bool) throws -> Results {
        var itemFailed = false
        do {
            return try database.writeTransaction {
                do {
                    return try recordEach(items, finish: finish).map { $0.mapError { $0 } }
                } catch {
                    itemFailed = true
                    throw error
                }
            }
        } catch  where itemFailed {}
        return try database.writeTransaction {
            try items.indices.map { index in
                do {
                    return .success(
                        try database.savepoint {
                            try record(items[index], finish: finish)
                        })
                } catch let rejection as VerificationError {
                    return .failure(rejection)
                } catch {
                    // Some errors (disk full, I/O error, out of memory) make SQLite roll back
                    // the whole transaction by itself: then the batch has failed as a whole,
                    // and the items after this one must not go on outside it.
                    guard database.isInTransaction else { throw error }
                    return .failure(error)
                }
            }
        }
    }

    /// Records `items` one after another in the open transaction. Every check that can reject
    /// an item runs before the item writes anything (`existingRow(of:)`), so a rejected item
    /// fails alone, with nothing to undo. Any other failure of an item is thrown, and the
    /// transaction then holds part of that item: the caller must roll it back. So is a
    /// rejection that came after a write, as a broken invariant: that would be a broken promise.
    func recordEach(_ items: [VerifiedPayload], finish: Bool) throws -> Rejections {
        try items.map { item in
            let changesBefore = database.totalChanges
            do {
                return .success(try record(item, finish: finish))
            } catch let rejection as VerificationError {
                guard database.totalChanges == changesBefore else {
                    throw StoreError.brokenInvariant(
                        "an item rejected after it wrote to the ledger: \(rejection.message)")
                }
                return .failure(rejection)
            }
        }
    }

    func record(_ item: VerifiedPayload, finish: Bool) throws -> RecordResult {
        if let reason = Ledger.unrecordableReason(item) { throw reason }
        switch item {
        case .transaction(let transaction):
            return try recordSubmitted(transaction, finish: finish)
        case .notification(let notification):
            return try recordNotification(notification)
        case .renewalInfo, .appTransaction:
            return RecordResult(outcome: .notRecorded, transactionId: nil, state: nil, finished: nil)
        }
    }

    // MARK: Transactions submitted by the app

    private func recordSubmitted(_ transaction: VerifiedTransaction, finish: Bool) throws -> RecordResult {
        guard let transactionId = transaction.transactionId else {
            throw Ledger.noTransactionId
        }
        var current = try amounts(transaction.environment.rawValue, transactionId)
        // A token stored before is a repeat, answered as one whatever it says (a notification
        // may have carried it for a transaction then unknown): only a new token is held against
        // the row.
        if let row = current, let contradiction = try contradiction(of: transaction, row: row),
            try storedEvidenceId(transaction.evidence.digest) == nil
        {
            throw contradiction
        }
        let evidence = try storeEvidence(
            transaction.evidence, kind: "transaction", environment: transaction.environment,
            bundleId: transaction.payload.bundleId, signedDate: transaction.payload.signedDate,
            transactionId: transactionId, notificationUUID: nil, context: transaction.context)
        var outcome = RecordResult.Outcome.duplicate
        // A new token is applied. A token already stored may still be unrecorded: a
        // notification can carry the very token the app submits later without recording its
        // transaction (e.g. a renewal).
        if evidence.isNew || current == nil {
            // A transaction the app submits without a signedDate may be of any age: it counts
            // as older than any signed information (0), so it may make a new row but never
            // undoes a refund, nor makes a later payload look stale.
            let (change, after) = try apply(
                transaction, undatedAt: 0, before: current, evidenceId: evidence.id, source: "client", revokes: false,
                mayInsert: true, finished: finish)
            current = after
            switch change {
            case .inserted: outcome = .recorded
            case .updated, .unchanged: outcome = .updated
            case .stale, .unknown: outcome = .duplicate
            }
        }
        if finish, let unfinished = current, !unfinished.finished,
            try finishTransaction(transaction.environment, transactionId, source: "client")
        {
            // Finishing changes the generated state only from pending (the schema's CASE puts
            // revoked and refunded first), so the row is not read again on this hot path.
            current?.finished = true
            if current?.state == .pending { current?.state = .finished }
        }
        return RecordResult(
            outcome: outcome, transactionId: transactionId, state: current?.state, finished: current?.finished)
    }

    // MARK: Notifications

    private func recordNotification(_ notification: VerifiedNotification) throws -> RecordResult {
        let uuid = notification.notificationUUID.lowercased()
        let nestedId = notification.transaction?.transactionId
        let environment = notification.environment
        func result(_ outcome: RecordResult.Outcome, transactionId: String?) throws -> RecordResult {
            let current = try transactionId.flatMap { try amounts(environment.rawValue, $0) }
            return RecordResult(
                outcome: outcome, transactionId: transactionId, state: current?.state, finished: current?.finished)
        }
        if let existing = try database.queryOne(
            "SELECT transaction_id FROM notifications WHERE notification_uuid = ?", uuid, row: { $0.text(0) })
        {
            try adoptVerdict(notification.evidence.digest, context: notification.context)
            return try result(.duplicate, transactionId: existing ?? nestedId)
        }
        let nestedRow: Amounts?
        do {
            nestedRow = try notification.transaction.flatMap(existingRow(of:))
        } catch let rejection as VerificationError {
            throw rejection.within("data.signedTransactionInfo")
        }
        let evidence = try storeEvidence(
            notification.evidence, kind: "notification", environment: environment,
            bundleId: notification.payload.claimedIdentity.bundleId, signedDate: notification.payload.signedDate,
            transactionId: nestedId, notificationUUID: notification.notificationUUID, context: notification.context)
        let evidenceId = evidence.id
        let type = NotificationType(rawValue: notification.rawNotificationType)

        var effect = try applyNestedTransaction(of: notification, type: type, uuid: uuid, row: nestedRow)
        switch type {
        // A request is about a transaction: without one (Apple's always carry it), the
        // notification leaves only the event any other type leaves.
        case .consumptionRequest where nestedId != nil:
            try event(
                "consumption_requested", environment, nestedId, source: uuid,
                detail: notification.payload.data?.rawConsumptionRequestReason)
            if !effect.changed { effect = NotificationEffect(name: "consumption_requested", changed: true) }
        case .refundDeclined:
            try event("refund_declined", environment, nestedId, source: uuid, detail: nil)
        default:
            // Any other type leaves an event of its own, unless applying its transaction did.
            if !effect.changed {
                try event(
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
            notification.payload.signedDate?.wholeMilliseconds, nestedId, evidenceId, effect.name, now)
        if type == .consumptionRequest, let nestedId {
            // After the notification row, which the request references.
            try openConsumptionRequest(notification, uuid: uuid, transactionId: nestedId)
        }
        return try result(effect.changed ? .applied : .recorded, transactionId: nestedId)
    }

    /// What applying a notification did: its `name` is kept as the notification's effect, and
    /// `changed` tells whether the ledger changed (the notification was applied).
    private struct NotificationEffect {
        let name: String
        let changed: Bool

        static let acknowledged = NotificationEffect(name: "acknowledged", changed: false)
    }

    /// Stores and applies the notification's signed transaction info, if it has any: a
    /// refund-related type or ONE_TIME_CHARGE records a transaction never seen before, and any
    /// type's newer information updates a known one. `row` is its transaction's row
    /// (`existingRow(of:)`).
    private func applyNestedTransaction(
        of notification: VerifiedNotification, type: NotificationType?, uuid: String, row: Amounts?
    ) throws -> NotificationEffect {
        guard let nested = notification.transaction else { return .acknowledged }
        let nestedEvidence = try storeEvidence(
            nested.evidence, kind: "transaction", environment: nested.environment,
            bundleId: nested.payload.bundleId, signedDate: nested.payload.signedDate,
            transactionId: nested.transactionId, notificationUUID: uuid, context: nested.context)
        let evidenceId = nestedEvidence.id
        let mayInsert = [.refund, .refundReversed, .revoke, .oneTimeCharge].contains(type)
        // Signed transaction info without a signedDate is as new as the notification that
        // carries it: the App Store's state when it signed that. Undated too, it shows no time
        // and counts as the oldest, as a transaction the app submits undated does.
        let undatedAt = notification.payload.signedDate?.wholeMilliseconds ?? 0
        let (change, _) = try apply(
            nested, undatedAt: undatedAt, before: row, evidenceId: evidenceId, source: uuid, revokes: type == .revoke,
            mayInsert: mayInsert)
        switch change {
        case .inserted(let event): return NotificationEffect(name: "recorded_\(event)", changed: true)
        case .updated(let event): return NotificationEffect(name: event, changed: true)
        case .stale: return NotificationEffect(name: "stale", changed: false)
        case .unchanged, .unknown: return .acknowledged
        }
    }

    /// How long Apple waits for consumption information after a CONSUMPTION_REQUEST.
    static let consumptionResponseWindowMilliseconds: Int64 = 12 * 3_600_000

    private func openConsumptionRequest(_ notification: VerifiedNotification, uuid: String, transactionId: String)
        throws
    {
        let requested = notification.payload.signedDate?.wholeMilliseconds ?? now
        try database.run(
            """
            INSERT INTO consumption_requests
                (notification_uuid, environment, transaction_id, reason, requested_ms, deadline_ms)
            VALUES (?, ?, ?, ?, ?, ?)
            """, uuid, notification.environment.rawValue, transactionId,
            notification.payload.data?.rawConsumptionRequestReason, requested,
            requested + Self.consumptionResponseWindowMilliseconds)
    }

    // MARK: Applying signed transaction info (order-safe)

    /// What applying a signed transaction did.
    enum Change {
        /// A new row; the associated value names the resulting state's event.
        case inserted(String)
        /// Newer information changed the row; the value is the event recorded.
        case updated(String)
        /// Newer information that changed nothing counted.
        case unchanged
        /// Older than (or as old as) what the ledger holds: ignored.
        case stale
        /// Not in the ledger, and not to be recorded from this source.
        case unknown
    }

    /// Applies `transaction` if it is newer than what the ledger holds (by `signedDate`, a
    /// missing one counting as the oldest), so a late or repeated payload never undoes a newer
    /// one. `before` is the row as it stands
    /// (`existingRow(of:)`), nil when there is none. Returns the change and the row's amounts
    /// after it (nil when there is no row). A new row is inserted already finished when
    /// `finished` is true (the app submitted and delivered it).
    ///
    /// Payloads are ordered by their own signedDate; one without is placed at `undatedAt`.
    private func apply(
        _ transaction: VerifiedTransaction, undatedAt: Int64, before: Amounts?, evidenceId: Int64, source: String,
        revokes: Bool, mayInsert: Bool, finished: Bool = false
    ) throws -> (Change, Amounts?) {
        guard let transactionId = transaction.transactionId else { return (.unknown, nil) }
        let payload = transaction.payload
        let environment = transaction.environment.rawValue
        let signedDate = payload.signedDate?.wholeMilliseconds ?? undatedAt
        let revoked = revokes || payload.revocationType == .familyRevoke
        if before == nil {
            guard mayInsert else { return (.unknown, nil) }
            // No RETURNING: SQLite buffers RETURNING rows in a temporary table, which costs more
            // than reading the new row back by its rowid, when it must be (`insertedAmounts`).
            let inserted = try database.run(
                """
                INSERT INTO transactions (environment, transaction_id, original_transaction_id, app_transaction_id,
                    account, bundle_id, product_id, product_type, quantity, price_milli, currency, storefront,
                    storefront_id, ownership, purchase_date_ms, signed_date_ms, revocation_date_ms, revocation_reason,
                    revocation_type, revocation_percentage, revoked, evidence_id, recorded_ms, finished_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (environment, transaction_id) DO NOTHING
                """,
                environment, transactionId, payload.originalTransactionId, payload.appTransactionId,
                payload.appAccountToken?.lowercased(), payload.bundleId ?? "", payload.productId ?? "",
                payload.rawType, Int64(payload.quantity ?? 1), payload.price, payload.currency, payload.storefront,
                payload.storefrontId, payload.rawInAppOwnershipType, payload.purchaseDate?.wholeMilliseconds,
                signedDate, payload.revocationDate?.wholeMilliseconds, payload.rawRevocationReason.map(Int64.init),
                payload.rawRevocationType, payload.revocationPercentage.map(Int64.init), revoked, evidenceId, now,
                finished ? now : nil)
            guard inserted == 1 else {
                throw StoreError.brokenInvariant(
                    "a row for transaction \(transactionId) appeared while it was recorded")
            }
            let after = try insertedAmounts(payload, signedDate: signedDate, revoked: revoked, finished: finished)
            try database.run(
                Self.insertRecorded, now, environment, transactionId, source, payload.currency, after.gross,
                payload.productId)
            if finished { try database.run(Self.insertFinished, now, environment, transactionId, source) }
            let stateEvent = try recordStateChange(
                from: Amounts(gross: after.gross, refunded: 0, revoked: 0, state: .pending), to: after,
                transactionId, environment, source: source, currency: payload.currency)
            return (.inserted(stateEvent ?? "transaction"), after)
        }
        guard let before else { throw StoreError.brokenInvariant("a transaction row vanished while it was recorded") }
        guard signedDate > before.signedDate else { return (.stale, before) }
        try database.run(
            """
            UPDATE transactions
            SET signed_date_ms = ?, revocation_date_ms = ?, revocation_reason = ?, revocation_type = ?,
                revocation_percentage = ?, revoked = ?, evidence_id = ?,
                account = coalesce(account, ?), app_transaction_id = coalesce(app_transaction_id, ?)
            WHERE id = ?
            """,
            signedDate, payload.revocationDate?.wholeMilliseconds, payload.rawRevocationReason.map(Int64.init),
            payload.rawRevocationType, payload.revocationPercentage.map(Int64.init), revoked, evidenceId,
            payload.appAccountToken?.lowercased(), payload.appTransactionId, before.rowid)
        let after = try amounts(rowid: before.rowid)
        guard
            let stateEvent = try recordStateChange(
                from: before, to: after, transactionId, environment, source: source, currency: payload.currency)
        else { return (.unchanged, after) }
        return (.updated(stateEvent), after)
    }

    /// The row of `transaction`'s transaction as it stands, nil when there is none; throws the
    /// rejection when `transaction` contradicts it. Every check that can reject an item runs
    /// before the item writes anything, so a rejected item needs nothing undone (`BatchRecorder`
    /// records without savepoints on this).
    private func existingRow(of transaction: VerifiedTransaction) throws -> Amounts? {
        guard let transactionId = transaction.transactionId,
            let row = try amounts(transaction.environment.rawValue, transactionId)
        else { return nil }
        if let contradiction = try contradiction(of: transaction, row: row) { throw contradiction }
        return row
    }

    /// The rejection of `transaction` when it contradicts `row`, its transaction's row; nil
    /// when it does not.
    private func contradiction(of transaction: VerifiedTransaction, row: Amounts) throws -> VerificationError? {
        guard let fields = try contradictedFields(transaction, rowid: row.rowid) else { return nil }
        return VerificationError(
            .invalidPayload,
            "it contradicts the recorded transaction \(transaction.transactionId ?? "?"): its "
                + "\(fields.joined(separator: ", ")) \(fields.count == 1 ? "differs" : "differ")")
    }

    /// The fields fixed at purchase that `transaction` gives otherwise than the row `rowid`
    /// holds, by their names in Apple's model; nil when none does. A field either side lacks is
    /// not compared. Every signed version of a transaction carries the same purchase: one that
    /// does not would leave the row and its newest evidence telling different stories.
    private func contradictedFields(_ transaction: VerifiedTransaction, rowid: Int64) throws -> [String]? {
        let fields = Self.purchaseFields
        guard
            let recorded = try database.queryOne(
                Self.selectPurchase, rowid, row: { row in fields.indices.map { row.text(Int32($0)) } })
        else { return nil }
        let differing = zip(fields, recorded).compactMap { field, stored -> String? in
            // Product and bundle are stored as "" when the payload had none.
            guard let value = field.value(transaction.payload), let stored, !stored.isEmpty, value != stored else {
                return nil
            }
            return field.name
        }
        return differing.isEmpty ? nil : differing
    }

    /// The fields fixed at purchase: each one's name in Apple's model, its column, and the
    /// payload's value as the column holds it (SQLite reads an integer column as decimal text).
    private static let purchaseFields:
        [(name: String, column: String, value: @Sendable (JWSTransactionDecodedPayload) -> String?)] = [
            ("productId", "product_id", { $0.productId }), ("bundleId", "bundle_id", { $0.bundleId }),
            ("price", "price_milli", { $0.price.map(String.init) }), ("currency", "currency", { $0.currency }),
            ("quantity", "quantity", { $0.quantity.map(String.init) }),
            ("purchaseDate", "purchase_date_ms", { $0.purchaseDate.map { String($0.wholeMilliseconds) } }),
            ("originalTransactionId", "original_transaction_id", { $0.originalTransactionId }),
            ("appAccountToken", "account", { $0.appAccountToken?.lowercased() }),
            ("appTransactionId", "app_transaction_id", { $0.appTransactionId }),
        ]

    /// `purchaseFields`' columns of one transaction row, in their order.
    private static let selectPurchase =
        "SELECT \(purchaseFields.map(\.column).joined(separator: ", ")) FROM transactions WHERE id = ?"

    /// Records the event for a change of refund or revocation state; nil when nothing changed.
    private func recordStateChange(
        from before: Amounts, to after: Amounts, _ transactionId: String, _ environment: String, source: String,
        currency: String?
    ) throws -> String? {
        let delta = Amounts(
            gross: 0, refunded: after.refunded - before.refunded, revoked: after.revoked - before.revoked)
        let kind: String
        switch (before.state, after.state) {
        case (let old, let new) where old == new:
            guard delta.refunded != 0 || delta.revoked != 0 else { return nil }
            kind = new == .revoked ? "revoked" : "refunded"
        case (_, .revoked): kind = "revoked"
        case (_, .refunded): kind = "refunded"
        case (.refunded, _): kind = "refund_reversed"
        case (.revoked, _): kind = "revoke_reversed"
        default: return nil
        }
        try event(kind, transactionId, environment, source: source, currency: currency, delta: delta, detail: nil)
        return kind
    }

    // MARK: Finishing

    /// Marks a transaction finished; false when it already was or is unknown.
    func finishTransaction(_ environment: AppStoreEnvironment, _ transactionId: String, source: String) throws -> Bool {
        let changed = try database.run(
            "UPDATE transactions SET finished_ms = ? WHERE environment = ? AND transaction_id = ? AND finished_ms IS NULL",
            now, environment.rawValue, transactionId)
        if changed > 0 {
            try event(
                "finished", transactionId, environment.rawValue, source: source, currency: nil, delta: .zero,
                detail: nil)
        }
        return changed > 0
    }

    // MARK: Storage helpers

    /// A transaction row's amounts and state, as `Amounts.columns` selects them.
    struct Amounts: Equatable {
        var gross: Int64
        var refunded: Int64
        var revoked: Int64
        var state: TransactionState = .pending
        var signedDate: Int64 = 0
        var finished = false
        /// The row's id; 0 for amounts not read from a row.
        var rowid: Int64 = 0

        static let zero = Amounts(gross: 0, refunded: 0, revoked: 0)

        static let columns =
            "gross_milli, refunded_milli, revoked_milli, state, signed_date_ms, finished_ms IS NOT NULL, id"
        // Built once: the statement cache compares SQL text, and a string built per call costs
        // an allocation and a full comparison.
        static let selectByRowid = "SELECT \(columns) FROM transactions WHERE id = ?"
        static let selectByKey = "SELECT \(columns) FROM transactions WHERE environment = ? AND transaction_id = ?"

        init(gross: Int64, refunded: Int64, revoked: Int64, state: TransactionState = .pending) {
            self.gross = gross
            self.refunded = refunded
            self.revoked = revoked
            self.state = state
        }

        init(_ row: Statement) {
            gross = row.int64(0)
            refunded = row.int64(1)
            revoked = row.int64(2)
            state = TransactionState(rawValue: row.text(3) ?? "") ?? .pending
            signedDate = row.int64(4)
            finished = row.int64(5) == 1
            rowid = row.int64(6)
        }
    }

    /// The amounts of the row just inserted for `payload`. A row neither refunded nor revoked,
    /// the common case, is not read back: the schema's generated columns give it the price,
    /// nothing refunded or revoked, and `pending` or `finished` (debug builds read it back and
    /// check).
    private func insertedAmounts(
        _ payload: JWSTransactionDecodedPayload, signedDate: Int64, revoked: Bool, finished: Bool
    ) throws -> Amounts {
        let rowid = database.lastInsertedRowID
        guard payload.revocationDate == nil, !revoked else { return try amounts(rowid: rowid) }
        var inserted = Amounts(
            gross: payload.price ?? 0, refunded: 0, revoked: 0, state: finished ? .finished : .pending)
        inserted.signedDate = signedDate
        inserted.finished = finished
        inserted.rowid = rowid
        assert(inserted == (try? amounts(rowid: rowid)), "the amounts of an inserted row differ from the schema's")
        return inserted
    }

    private func amounts(rowid: Int64) throws -> Amounts {
        guard
            let amounts = try database.queryOne(
                Amounts.selectByRowid, rowid, row: Amounts.init)
        else { throw StoreError.brokenInvariant("a transaction row vanished while it was recorded") }
        return amounts
    }

    private func amounts(_ environment: String, _ transactionId: String) throws -> Amounts? {
        try database.queryOne(
            Amounts.selectByKey, environment, transactionId, row: Amounts.init)
    }

    /// An event's columns; the statements below add their values. (Built once, as every
    /// statement run per item: see `selectEvidenceId`.)
    static let insertEvent = """
        INSERT INTO events (at_ms, environment, transaction_id, kind, source, currency, gross_delta_milli,
            refunded_delta_milli, revoked_delta_milli, detail)
        """

    static let insertAnyEvent = insertEvent + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    /// The `recorded` event of a new row: its values are the time, environment, transaction id,
    /// source, currency, gross amount and product id.
    static let insertRecorded = insertEvent + " VALUES (?1, ?2, ?3, 'recorded', ?4, ?5, ?6, 0, 0, ?7)"

    /// The `finished` event of a row inserted finished: its values are the time, environment,
    /// transaction id and source. A statement of its own: inside a transaction, SQLite keeps a
    /// statement journal (a copy of each page the statement changes) for a statement that
    /// writes several rows, which costs more than a second step.
    static let insertFinished = insertEvent + " VALUES (?1, ?2, ?3, 'finished', ?4, NULL, 0, 0, 0, NULL)"

    private func event(
        _ kind: String, _ transactionId: String?, _ environment: String, source: String, currency: String?,
        delta: Amounts, detail: String?
    ) throws {
        try database.run(
            Self.insertAnyEvent, now, environment, transactionId, kind, source, currency, delta.gross, delta.refunded,
            delta.revoked, detail)
    }

    private func event(
        _ kind: String, _ environment: AppStoreEnvironment, _ transactionId: String?, source: String, detail: String?
    ) throws {
        try event(
            kind, transactionId, environment.rawValue, source: source, currency: nil, delta: .zero, detail: detail)
    }

    /// The result of storing a token: its row's id, and whether this stored it.
    struct StoredEvidence {
        let id: Int64
        let isNew: Bool
    }

    /// The id of the stored token whose SHA-256 is `sha256`, or nil.
    func storedEvidenceId(_ sha256: [UInt8]) throws -> Int64? {
        try database.queryOne(Self.selectEvidenceId, sha256) { $0.int64(0) }
    }

    /// The condition that finds the evidence whose digest is `?1` through its index, which
    /// holds the digest's first 8 bytes (migration 0002). The `+` keeps SQLite from putting the
    /// bound value in place of the column in `substr(sha256, 1, 8)` (constant propagation),
    /// after which the index would no longer match.
    static let evidenceByDigest = "substr(sha256, 1, 8) = substr(?1, 1, 8) AND +sha256 = ?1"

    // Built once, as are all statements run per item: the statement cache compares SQL text,
    // and a string built per call costs an allocation and a full comparison.
    static let selectEvidenceId = "SELECT id FROM evidence WHERE \(evidenceByDigest)"

    /// Lets the stored token whose SHA-256 is `digest`, verified again now, stand for this
    /// verdict (`context`) when it was stored under another (other roots or policy, or an
    /// earlier version of the checks) and this one used no clock: its later repeats are then
    /// answered from the ledger (`Ledger.knownTokens`) rather than verified every time.
    private func adoptVerdict(_ digest: [UInt8], context: VerificationContext) throws {
        guard !context.usedClock else { return }
        try database.run(Self.updateVerdict, digest, context.verifierFingerprint)
    }

    static let updateVerdict = """
        UPDATE evidence SET verifier_fingerprint = ?2, clock_free = 1
        WHERE \(evidenceByDigest) AND (verifier_fingerprint IS NOT ?2 OR clock_free = 0)
        """

    /// Stores a verified token once (by the SHA-256 the verifier worked out), its header once
    /// per distinct header.
    private func storeEvidence(
        _ token: TokenEvidence, kind: String, environment: AppStoreEnvironment, bundleId: String?,
        signedDate: AppleDate?, transactionId: String?, notificationUUID: String?, context: VerificationContext
    ) throws -> StoredEvidence {
        assert(token.digest == SHA256.hash(token.token.utf8), "a token digest that is not the token's")
        // Stored once. The digest is not a unique key (its index holds 8 bytes of it), so it is
        // looked up first, before the token's body is copied, inside the write transaction no
        // other writer shares. (One statement, INSERT ... SELECT ... WHERE NOT EXISTS, costs
        // more: SQLite copies a SELECT from the table it inserts into through a temporary table.)
        if let stored = try storedEvidenceId(token.digest) {
            try adoptVerdict(token.digest, context: context)
            return StoredEvidence(id: stored, isNew: false)
        }
        try database.run(
            """
            INSERT INTO evidence (sha256, kind, header_id, body, environment, bundle_id, signed_date_ms, transaction_id,
                notification_uuid, verifier_fingerprint, clock_free, received_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            token.digest, kind, try headerId(of: token), String(token.body), environment.rawValue, bundleId,
            signedDate?.wholeMilliseconds, transactionId, notificationUUID, context.verifierFingerprint,
            !context.usedClock, now)
        return StoredEvidence(id: database.lastInsertedRowID, isNew: true)
    }

    /// The id of `token`'s header in `jws_headers`, inserting it when new; remembered by the
    /// header's digest for the few signing chains in use (`Database.headerIds`).
    private func headerId(of token: TokenEvidence) throws -> Int64 {
        if let known = database.headerIds.first(where: { $0.digest == token.headerDigest }) { return known.id }
        try database.run(
            "INSERT OR IGNORE INTO jws_headers (sha256, header) VALUES (?, ?)", token.headerDigest,
            String(token.header))
        guard
            let id = try database.queryOne(
                "SELECT id FROM jws_headers WHERE sha256 = ?", token.headerDigest, row: { $0.int64(0) })
        else { throw StoreError.brokenInvariant("a stored header is missing") }
        if database.headerIds.count >= 8 { database.headerIds.removeFirst() }
        database.headerIds.append((token.headerDigest, id))
        return id
    }
}
