// SPDX-License-Identifier: GPL-3.0-or-later

extension Database {
    /// Runs `body` in a write transaction (`beginWrite`): committed when it returns, rolled back
    /// when it throws.
    func writeTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try beginWrite()
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Undoes the open transaction, if one is still open (SQLite may have ended it itself), and
    /// forgets the header ids it may have written.
    func rollBack() {
        if isInTransaction { try? execute("ROLLBACK") }
        headerIds.removeAll()
    }

    /// Runs `body` in a read transaction: every query in it sees the same state of the file,
    /// whatever other connections commit meanwhile.
    func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN")
        defer { try? execute("COMMIT") }
        return try body()
    }
}
