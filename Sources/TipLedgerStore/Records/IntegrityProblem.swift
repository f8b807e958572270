// SPDX-License-Identifier: GPL-3.0-or-later

/// A problem SQLite's integrity check found in the file.
public struct IntegrityProblem: Sendable, Equatable {
    /// The ledger table it is in (with its indexes), or nil for the file as a whole (free pages,
    /// pages that belong to no table).
    public let table: String?
    /// SQLite's words, e.g. "On tree page 36 cell 217: Rowid 80 out of order".
    public let message: String
}
