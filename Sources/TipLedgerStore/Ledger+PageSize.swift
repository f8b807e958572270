// SPDX-License-Identifier: GPL-3.0-or-later

extension Ledger {
    /// Whether SQLite takes `bytes` as a page size: a power of two from 512 to 65,536.
    public static func isPageSize(_ bytes: Int) -> Bool {
        (512...65_536).contains(bytes) && bytes & (bytes - 1) == 0
    }

    /// Rewrites the ledger at `path` with pages of `bytes`, unless it has them already; returns
    /// the page size it had. A ledger keeps the page size it was made with, and `serve` writes
    /// more bytes a request into the large pages of one `verify` made
    /// (docs/performance.md#scale).
    ///
    /// SQLite changes the page size of a file in WAL mode only out of it, by VACUUM, which
    /// copies the whole ledger (into a temporary file first, then back through the rollback
    /// journal: free space for two copies); leaving WAL mode takes the file for this connection
    /// alone, so no other process may have the ledger open. A failure leaves the ledger as it
    /// was: the journal rolls an interrupted copy back.
    ///
    /// `rewriting` hears of the old page size before the copy starts.
    public static func changePageSize(path: String, to bytes: Int, rewriting: (_ from: Int) -> Void = { _ in })
        throws -> Int
    {
        precondition(isPageSize(bytes), "\(bytes) is not a page size")
        try refuseUnwritable(path)
        let database = try Database(path: path)
        let old = Int(try database.pragmaInteger("page_size"))
        guard old != bytes else { return old }
        // The mode stays WAL, or the pragma finds the file busy, while another connection has
        // the file open.
        let leftWAL = Result { () throws(StoreError) in try database.journalMode("DELETE") }
        if case .failure(let error) = leftWAL, !error.isTransient { throw error }
        guard case .success("delete") = leftWAL else {
            throw StoreError(
                code: 0,
                message: "the ledger \(path) is open in another process; its page size can change only while "
                    + "no other process has it open",
                hint: "stop serve, sync and Litestream, then run migrate --page-size again")
        }
        // Back to WAL whatever happens; should even that fail, the next command that writes the
        // ledger sets it again as it opens it (`Database.configure`).
        defer { _ = try? database.journalMode("WAL") }
        rewriting(old)
        try database.execute("PRAGMA page_size = \(bytes)")
        try database.execute("VACUUM")
        return old
    }
}
