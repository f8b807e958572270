// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerStore

/// Cached statements keep their bindings between runs, so every run must set them all; text and
/// blob values are handed to SQLite from a buffer each statement reuses.
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

    @Test func valuesOfOneRunKeepTheirOwnBytes() throws {
        let database = try database()
        let long = String(repeating: "0123456789", count: 100)
        let digest: [UInt8] = Array(0..<32)

        let row = try database.queryOne("SELECT ?, ?, ?, ?", "a", long, digest, "z") {
            ($0.text(0), $0.text(1), $0.blob(2), $0.text(3))
        }

        #expect(row?.0 == "a")
        #expect(row?.1 == long)
        #expect(row?.2 == digest)
        #expect(row?.3 == "z")
    }

    @Test func valuesLargerThanTheBufferAreBoundWholeInEveryRun() throws {
        let database = try database()
        // The first run outgrows the buffer (256 bytes); the next ones run with a larger one.
        for size in [300, 70_000, 10, 140_000] {
            let first = String(repeating: "x", count: size)
            let second = String(repeating: "y", count: size + 1)

            try database.run("INSERT INTO t (a, b) VALUES (?, ?)", first, second)

            let stored = try database.queryOne("SELECT a, b FROM t WHERE rowid = last_insert_rowid()") {
                ($0.text(0), $0.text(1))
            }
            #expect(stored?.0 == first)
            #expect(stored?.1 == second)
        }
    }

    @Test func anEmptyValueIsBoundAsEmptyNotNull() throws {
        let database = try database()

        let types = try database.queryOne("SELECT typeof(?), typeof(?)", "", [UInt8]()) {
            ($0.text(0), $0.text(1))
        }

        #expect(types?.0 == "text")
        #expect(types?.1 == "blob")
    }
}
