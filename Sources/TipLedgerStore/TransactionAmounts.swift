// SPDX-License-Identifier: GPL-3.0-or-later

/// A transaction row's amounts and state, as `columns` selects them; also the change an event
/// makes to a row's amounts.
struct TransactionAmounts: Equatable {
    var gross: Int64
    var refunded: Int64
    var revoked: Int64
    var state: TransactionState = .pending
    var signedDate: Int64 = 0
    var finished = false
    /// The row's id; 0 for amounts not read from a row.
    var rowid: Int64 = 0

    static let zero = TransactionAmounts(gross: 0, refunded: 0, revoked: 0)

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

    /// The row once finished, as the schema then gives it, without reading it again.
    mutating func markFinished() {
        finished = true
        state = TransactionState(revoked: state == .revoked, refunded: state == .refunded, finished: true)
    }
}
