// SPDX-License-Identifier: GPL-3.0-or-later

/// The kind of failure that stopped a write to the ledger, in the few kinds an operator acts on
/// differently: free space, remount, check the disk, restore from a backup, or wait. The raw
/// values name it in `/healthz` and `/metrics`.
public enum LedgerFault: String, Sendable, CaseIterable {
    /// The file system holding the ledger is full (SQLITE_FULL).
    case diskFull = "disk_full"
    /// The file system is read-only, or the ledger may not be written (SQLITE_READONLY,
    /// SQLITE_PERM, or an I/O error on a file system mounted read-only).
    case readOnly = "read_only"
    /// The operating system failed to read or write the file (SQLITE_IOERR, SQLITE_CANTOPEN).
    case ioError = "io_error"
    /// SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
    case damaged
    /// Another connection held the write lock past the busy timeout (SQLITE_BUSY,
    /// SQLITE_LOCKED): the next write may well commit.
    case busy
    /// Anything else: an error of tipledger's own, or one SQLite rarely gives.
    case other

    /// The fault of an SQLite result code (primary or extended); `other` for 0.
    init(sqliteCode code: Int32) {
        switch code & 0xff {
        case 13: self = .diskFull  // SQLITE_FULL
        case 3, 8: self = .readOnly  // SQLITE_PERM, SQLITE_READONLY
        case 10, 14: self = .ioError  // SQLITE_IOERR, SQLITE_CANTOPEN
        case 11, 26: self = .damaged  // SQLITE_CORRUPT, SQLITE_NOTADB
        case 5, 6: self = .busy  // SQLITE_BUSY, SQLITE_LOCKED
        default: self = .other
        }
    }

    /// Whether the file system or the disk failed: any commit meets such a fault, so one that
    /// changes nothing (`Ledger.probeWriteIfDue`) tells whether writes work again. Damage stays
    /// however many pages commit, and an unforeseen failure may be no page's at all.
    public var isStorageFault: Bool { self == .diskFull || self == .readOnly || self == .ioError }

    /// Why writes fail, in words for the people who run the service (no path, no SQL).
    public var explanation: String {
        switch self {
        case .diskFull: "the file system holding the ledger is full"
        case .readOnly: "the ledger's file system is read-only, or the ledger may not be written"
        case .ioError: "the disk failed to read or write the ledger (an I/O error)"
        case .damaged:
            "SQLite found the ledger damaged; audit it with tipledger reverify and restore it from a backup"
        case .busy: "another process held the ledger's write lock too long"
        case .other: "a write to the ledger failed"
        }
    }
}
