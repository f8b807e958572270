// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerStore

/// Cached statements keep their bindings between runs, so every run must set them all.
@Suite struct StatementTests {
    private func database() throws -> Database {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (a TEXT, b TEXT)")
        return database
    }

    @Test func aRunThatLeavesAParameterOutIsRefusedAndWritesNothing() throws {
        let database = try database()
        try database.run("INSERT INTO t (a, b) VALUES (?, ?)", "first", "second")

        #expect {
            try database.run("INSERT INTO t (a, b) VALUES (?, ?)", "only")
        } throws: { error in
            (error as? StoreError)?.message == "the statement has 2 parameters; 1 values were given"
        }
        #expect(throws: StoreError.self) {
            _ = try database.query("SELECT count(*) FROM t WHERE a = ? AND b = ?", ["first"]) { $0.int64(0) }
        }
        #expect(try database.queryOne("SELECT count(*) FROM t") { $0.int64(0) } == 1)
    }

    @Test func aCachedStatementRunsWithTheValuesOfEachRun() throws {
        let database = try database()
        try database.run("INSERT INTO t (a, b) VALUES (?, ?)", "first", "second")
        try database.run("INSERT INTO t (a, b) VALUES (?, ?)", "third", Optional<String>.none)

        let rows = try database.query("SELECT a, b FROM t ORDER BY rowid", []) { ($0.text(0), $0.text(1)) }

        #expect(rows.map(\.0) == ["first", "third"])
        #expect(rows.map(\.1) == ["second", nil])
    }
}
