// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Applies signed transaction info to the `transactions` table, whatever brought it (the app,
/// or a notification), in an order-safe way (docs/ledger.md): newer information by
/// `signedDate` updates a row, older information changes nothing, and every change of amounts
/// leaves its event. Works inside the open write transaction.
struct TransactionApplier {
    let database: Database
    /// The time of recording, milliseconds since 1970.
    let now: Int64
    let events: EventLog

    init(database: Database, now: Int64) {
        self.database = database
        self.now = now
        self.events = EventLog(database: database, now: now)
    }

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
    func apply(
        _ transaction: VerifiedTransaction, undatedAt: Int64, before: TransactionAmounts?, evidenceId: Int64,
        source: String, revokes: Bool, mayInsert: Bool, finished: Bool = false
    ) throws -> (Change, TransactionAmounts?) {
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
            try events.recordInsertion(
                transactionId, environment, source: source, currency: payload.currency, gross: after.gross,
                productId: payload.productId, finished: finished)
            let stateEvent = try events.recordStateChange(
                from: TransactionAmounts(gross: after.gross, refunded: 0, revoked: 0, state: .pending), to: after,
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
            let stateEvent = try events.recordStateChange(
                from: before, to: after, transactionId, environment, source: source, currency: payload.currency)
        else { return (.unchanged, after) }
        return (.updated(stateEvent), after)
    }

    /// The row of `transaction`'s transaction as it stands, nil when there is none; throws the
    /// rejection when `transaction` contradicts it. Every check that can reject an item runs
    /// before the item writes anything, so a rejected item needs nothing undone
    /// (`RecordWriter.recordEach` records without savepoints on this).
    func existingRow(of transaction: VerifiedTransaction) throws -> TransactionAmounts? {
        guard let transactionId = transaction.transactionId,
            let row = try amounts(transaction.environment.rawValue, transactionId)
        else { return nil }
        if let contradiction = try contradiction(of: transaction, row: row) { throw contradiction }
        return row
    }

    /// Marks a transaction finished; false when it already was or is unknown.
    func finishTransaction(_ environment: AppStoreEnvironment, _ transactionId: String, source: String) throws -> Bool {
        let changed = try database.run(
            "UPDATE transactions SET finished_ms = ? WHERE environment = ? AND transaction_id = ? AND finished_ms IS NULL",
            now, environment.rawValue, transactionId)
        if changed > 0 {
            try events.append(
                "finished", transactionId, environment.rawValue, source: source, currency: nil, delta: .zero,
                detail: nil)
        }
        return changed > 0
    }

    /// The amounts of the row just inserted for `payload`. A row neither refunded nor revoked,
    /// the common case, is not read back: the schema's generated columns give it the price,
    /// nothing refunded or revoked, and the state `TransactionState(revoked:refunded:finished:)`
    /// says (debug builds read it back and check).
    private func insertedAmounts(
        _ payload: JWSTransactionDecodedPayload, signedDate: Int64, revoked: Bool, finished: Bool
    ) throws -> TransactionAmounts {
        let rowid = database.lastInsertedRowID
        guard payload.revocationDate == nil, !revoked else { return try amounts(rowid: rowid) }
        var inserted = TransactionAmounts(
            gross: payload.price ?? 0, refunded: 0, revoked: 0,
            state: TransactionState(revoked: false, refunded: false, finished: finished))
        inserted.signedDate = signedDate
        inserted.finished = finished
        inserted.rowid = rowid
        assert(inserted == (try? amounts(rowid: rowid)), "the amounts of an inserted row differ from the schema's")
        return inserted
    }

    private func amounts(rowid: Int64) throws -> TransactionAmounts {
        guard
            let amounts = try database.queryOne(
                TransactionAmounts.selectByRowid, rowid, row: TransactionAmounts.init)
        else { throw StoreError.brokenInvariant("a transaction row vanished while it was recorded") }
        return amounts
    }

    /// The row of the transaction `transactionId` in `environment`, nil when there is none.
    func amounts(_ environment: String, _ transactionId: String) throws -> TransactionAmounts? {
        try database.queryOne(
            TransactionAmounts.selectByKey, environment, transactionId, row: TransactionAmounts.init)
    }
}
