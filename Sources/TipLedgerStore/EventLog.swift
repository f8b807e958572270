// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The append-only history of the ledger (docs/ledger.md): one event per change to a
/// transaction, with the change it made to the transaction's amounts, so that every
/// transaction's amounts are the sums of its events'. Works inside the open write transaction.
struct EventLog {
    let database: Database
    /// The time of recording, milliseconds since 1970.
    let now: Int64

    /// An event's columns; the statements below add their values. (Built once, as every
    /// statement run per item: see `EvidenceStore.selectEvidenceId`.)
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

    /// Appends the `recorded` event of a row just inserted with `gross`, and its `finished`
    /// event when it was inserted finished.
    func recordInsertion(
        _ transactionId: String, _ environment: String, source: String, currency: String?, gross: Int64,
        productId: String?, finished: Bool
    ) throws {
        try database.run(Self.insertRecorded, now, environment, transactionId, source, currency, gross, productId)
        if finished { try database.run(Self.insertFinished, now, environment, transactionId, source) }
    }

    /// Appends an event that changes the amounts by `delta`.
    func append(
        _ kind: String, _ transactionId: String?, _ environment: String, source: String, currency: String?,
        delta: TransactionAmounts, detail: String?
    ) throws {
        try database.run(
            Self.insertAnyEvent, now, environment, transactionId, kind, source, currency, delta.gross, delta.refunded,
            delta.revoked, detail)
    }

    /// Appends an event that changes no amount.
    func append(
        _ kind: String, _ environment: AppStoreEnvironment, _ transactionId: String?, source: String, detail: String?
    ) throws {
        try append(
            kind, transactionId, environment.rawValue, source: source, currency: nil, delta: .zero, detail: detail)
    }

    /// Appends the event for a change of refund or revocation state; returns its kind, nil when
    /// nothing changed.
    func recordStateChange(
        from before: TransactionAmounts, to after: TransactionAmounts, _ transactionId: String, _ environment: String,
        source: String, currency: String?
    ) throws -> String? {
        let delta = TransactionAmounts(
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
        try append(kind, transactionId, environment, source: source, currency: currency, delta: delta, detail: nil)
        return kind
    }
}
