// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A failure of the ledger database: SQLite's result code and message, the SQL that failed
/// (never the bound values, which may be customer data), and a hint for people when one helps.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code, or 0 for errors raised by tipledger itself.
    public let code: Int32
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    public let hint: String?
    /// Set when the input, not the ledger, is at fault (a signed transaction that contradicts
    /// the recorded one): the caller reports it as this rejection of the input.
    public let rejection: VerificationError?

    public init(code: Int32, message: String, sql: String? = nil, hint: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.hint = hint
        self.rejection = nil
    }

    /// The input is rejected: it cannot be recorded beside what the ledger holds.
    init(rejecting rejection: VerificationError) {
        self.code = 0
        self.message = rejection.message
        self.sql = nil
        self.hint = nil
        self.rejection = rejection
    }

    public var description: String {
        var text = message
        if code != 0 { text += " (SQLite code \(code))" }
        if let sql { text += " in: \(sql.split(separator: "\n").joined(separator: " ").prefix(200))" }
        return text
    }

    /// Whether SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
    public var isDamage: Bool {
        let primary = code & 0xff
        return primary == 11 || primary == 26
    }

    /// What to do about a damaged ledger.
    public static let damageHint = "restore it from a copy made with tipledger backup"

    /// Whether retrying later may succeed (the database was busy or locked).
    public var isTransient: Bool {
        let primary = code & 0xff
        return primary == 5 || primary == 6  // SQLITE_BUSY, SQLITE_LOCKED
    }
}
