// SPDX-License-Identifier: GPL-3.0-or-later

/// A failure of the ledger database: SQLite's result code and message, the SQL that failed
/// (never the bound values, which may be customer data), and a hint for people when one helps.
///
/// Never the input's fault: the ledger rejects an input (a signed transaction that contradicts
/// the recorded one) with the verifier's own `VerificationError`, from the core to the HTTP
/// answer (see docs/ledger.md, "What recording refuses").
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code, or 0 for errors raised by tipledger itself.
    public let code: Int32
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    public let hint: String?
    /// The kind of failure, for health checks and metrics: the code's, unless the error was
    /// explained otherwise (an I/O error on a file system mounted read-only is `readOnly`).
    public let fault: LedgerFault
    /// Whether tipledger broke a rule of its own (a row it just wrote is gone): a bug, not a
    /// failure of the disk or the database, which the command line reports as an internal
    /// error (exit status 70, see docs/cli.md).
    public let isBrokenInvariant: Bool

    package init(code: Int32, message: String, sql: String? = nil, hint: String? = nil) {
        self.init(code: code, message: message, sql: sql, hint: hint, fault: LedgerFault(sqliteCode: code))
    }

    init(
        code: Int32, message: String, sql: String? = nil, hint: String? = nil, fault: LedgerFault,
        isBrokenInvariant: Bool = false
    ) {
        self.code = code
        self.message = message
        self.sql = sql
        self.hint = hint
        self.fault = fault
        self.isBrokenInvariant = isBrokenInvariant
    }

    /// tipledger broke a rule of its own: `message` says which.
    static func brokenInvariant(_ message: String) -> StoreError {
        StoreError(code: 0, message: message, fault: .other, isBrokenInvariant: true)
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
    public static let damageHint =
        "audit it with tipledger reverify, and restore it from a copy made with tipledger backup (see the README)"

    /// Whether retrying later may succeed (the database was busy or locked).
    var isTransient: Bool {
        let primary = code & 0xff
        return primary == 5 || primary == 6  // SQLITE_BUSY, SQLITE_LOCKED
    }
}

extension StoreError {
    /// This error, met while writing the ledger at `path`, said in words with a hint when the
    /// file system or the disk is at fault (full, read-only, failing); any other error (busy,
    /// damaged, one of tipledger's own) as it is.
    func explained(writingLedger path: String) -> StoreError {
        let readOnly = LedgerVolume.of(ledger: path)?.isReadOnly == true
        // An I/O error on a file system mounted read-only (after disk errors, say) is that.
        switch fault == .ioError && readOnly ? .readOnly : fault {
        case .diskFull:
            return StoreError(
                code: code, message: "cannot write the ledger \(path): its file system is full", sql: sql,
                hint: "free space on the file system that holds \(path) (the -wal file beside it grows with "
                    + "each write), then try again; nothing since the last commit was recorded",
                fault: .diskFull)
        case .readOnly:
            return StoreError(
                code: code,
                message: readOnly
                    ? "cannot write the ledger \(path): its file system is mounted read-only"
                    : "cannot write the ledger \(path): \(message)",
                sql: sql, hint: Self.readOnlyHint, fault: .readOnly)
        case .ioError:
            return StoreError(
                code: code, message: "cannot write the ledger \(path): the disk failed (\(message))", sql: sql,
                hint: "check the disk and the kernel's log (dmesg), then audit the ledger with tipledger reverify",
                fault: .ioError)
        case .damaged, .busy, .other:
            return self
        }
    }

    /// What to do about a ledger that cannot be written.
    static let readOnlyHint =
        "remount its file system read-write, or move the ledger to a writable one; "
        + "report, restore, pending and reverify read it as it is"
}
