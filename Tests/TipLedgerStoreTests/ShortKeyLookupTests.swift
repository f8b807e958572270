// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Migration 0002: token digests, account tokens and app transaction ids are indexed by 8 bytes
/// of their value. Lookups go through those indexes and still match only the whole value.
@Suite struct ShortKeyLookupTests {
    /// SQLite's plan for `sql`, whose `parameters` are bound to NULL, one line per step.
    static func plan(_ sql: String, parameters: Int = 1, in store: TestLedger) throws -> [String] {
        try store.ledger.withDatabase { database in
            try database.query("EXPLAIN QUERY PLAN " + sql, Array(repeating: SQLValue.null, count: parameters)) {
                $0.text(3) ?? ""
            }
        }
    }

    @Test func everyLookupByARandomValueSearchesItsShortKeyIndex() throws {
        let store = try TestLedger()
        let restoreFrom = "SELECT * FROM transactions WHERE "

        #expect(try Self.plan(EvidenceStore.selectEvidenceId, in: store) == [search("evidence", "evidence_by_digest")])
        #expect(
            try Self.plan(Ledger.selectKnownToken, parameters: 2, in: store).first == search("e", "evidence_by_digest"))
        // The part and the short key, for every environment or only some.
        for environments in [nil, [AppStoreEnvironment.sandbox], [.production, .sandbox]] {
            for (column, index) in [
                ("account", "transactions_by_account"), ("app_transaction_id", "transactions_by_app_transaction"),
            ] {
                let (condition, values) = Ledger.restoreCondition(
                    column: column, value: "x", environments: environments)
                #expect(
                    try Self.plan(restoreFrom + condition, parameters: values.count, in: store).first
                        == search("transactions", index, columns: 2), "\(column) \(environments ?? [])")
            }
        }
        // Without the `+` before the column, SQLite puts the value in place of the column in
        // the short key, and the search uses the part alone.
        let withoutPlus = Ledger.lookUp("account").replacingOccurrences(of: "+account", with: "account")
        #expect(withoutPlus != Ledger.lookUp("account"))
        #expect(
            try Self.plan(restoreFrom + withoutPlus, parameters: 2, in: store).first
                == search("transactions", "transactions_by_account", columns: 1))
        // Without the `+` before the environment, SQLite goes through the environment's rows.
        let (condition, values) = Ledger.restoreCondition(
            column: "account", value: "x", environments: [.sandbox])
        let plain = condition.replacingOccurrences(of: "+environment", with: "environment")
        #expect(plain != condition)
        #expect(
            try Self.plan(restoreFrom + plain, parameters: values.count, in: store).first
                == "SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 (environment=?)")
    }

    private func search(_ table: String, _ index: String, columns: Int = 1) -> String {
        let keys = Array(repeating: "<expr>=?", count: columns).joined(separator: " AND ")
        return "SEARCH \(table) USING INDEX \(index) (\(keys))"
    }

    /// Migration 0003: the lookup indexes are kept in parts of 65,536 transactions (`id >> 16`),
    /// and a restore searches every part.
    @Test func aRestoreFindsTheTransactionsOfEveryPart() throws {
        let store = try TestLedger()
        let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let appTransactionId = "704897469903383919"
        func tip(_ id: String, price: Int64) throws -> String {
            try TestChains.transaction(id: id, price: price, account: account) {
                $0.appTransactionId = appTransactionId
            }
        }
        _ = try store.record(try tip("2000000000000001", price: 990))
        // A row whose id ends part 1, so that the next tip starts part 2: parts 0 and 2 hold the
        // account's tips, part 1 a row of another account.
        _ = try store.ledger.withDatabase { database in
            try database.run(
                """
                INSERT INTO transactions (id, environment, transaction_id, account, app_transaction_id, bundle_id,
                    product_id, quantity, signed_date_ms, evidence_id, recorded_ms)
                SELECT 131071, environment, 'another', '00000000-0000-4000-8000-000000000001', '1', bundle_id,
                    product_id, 1, signed_date_ms, evidence_id, recorded_ms
                FROM transactions
                """)
        }
        _ = try store.record(try tip("2000000000000002", price: 1990))
        let accountParts = "SELECT count(DISTINCT id >> 16) FROM transactions WHERE account = ? AND id >> 16 IN (0, 2)"
        #expect(try store.ledger.integer(accountParts, [account]) == 2)

        // Only the parts that hold a transaction are searched.
        #expect(try store.ledger.integer("SELECT count(*) FROM (\(Ledger.everyPart))") == 3)
        for restore in [
            try store.ledger.restore(account: account, includeAll: true),
            try store.ledger.restore(appTransactionId: appTransactionId, includeAll: true),
            try store.ledger.restore(account: account, includeAll: false, environments: [.sandbox]),
        ] {
            #expect(restore.transactions.map(\.transactionId).sorted() == ["2000000000000001", "2000000000000002"])
            #expect(restore.totals.map(\.netMilli) == [2980])
        }
    }

    /// The parts between the first transaction's and the last's are searched one by one while
    /// they are few; ids far apart (a ledger edited by hand) cost one search per part that
    /// holds a transaction, not one per part in between, and negative ids are found too.
    @Test func partsFarApartAreFoundOneFromTheNext() throws {
        let store = try TestLedger()
        let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        _ = try store.record(try TestChains.transaction(id: "2000000000000001", price: 990, account: account))
        // A row of another account at id 2^24 (part 256), and the next tip recorded after it.
        let another = """
            INSERT INTO transactions (id, environment, transaction_id, bundle_id, product_id, quantity,
                signed_date_ms, evidence_id, recorded_ms)
            SELECT ?, environment, ?, bundle_id, product_id, 1, signed_date_ms, evidence_id, recorded_ms
            FROM transactions WHERE transaction_id = '2000000000000001'
            """
        _ = try store.ledger.withDatabase { try $0.run(another, Int64(1) << 24, "another") }
        _ = try store.record(try TestChains.transaction(id: "2000000000000002", price: 1990, account: account))
        let parts = "SELECT count(*), min(n), max(n) FROM (\(Ledger.everyPart))"
        #expect(try store.ledger.integer(parts) == 257)
        try expectBothTips()

        // Rows at the smallest id there is and just below the largest, and the first tip moved
        // next to the smallest: parts -2^47, 256 and 2^47 - 1.
        _ = try store.ledger.withDatabase { database in
            try database.run(another, Int64.min, "smallest")
            try database.run(another, Int64.max - 1, "largest")
            try database.run("UPDATE transactions SET id = ? WHERE transaction_id = '2000000000000001'", Int64.min + 1)
        }
        #expect(try store.ledger.integer(parts) == 3)
        try expectBothTips()

        func expectBothTips() throws {
            let restore = try store.ledger.restore(account: account, includeAll: true)
            #expect(restore.transactions.map(\.transactionId).sorted() == ["2000000000000001", "2000000000000002"])
            #expect(restore.totals.map(\.netMilli) == [2980])
        }
    }

    /// Finding the parts reads the ends of the table and searches its ids; it never scans it.
    @Test func findingThePartsScansNothing() throws {
        let store = try TestLedger()
        let steps = try Self.plan(Ledger.everyPart, parameters: 0, in: store)
        #expect(steps.contains { $0.hasPrefix("SEARCH transactions") })
        #expect(!steps.contains { $0.hasPrefix("SCAN transactions") }, "\(steps)")
    }

    @Test func accountsThatEndAlikeAreToldApart() throws {
        let store = try TestLedger()
        let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let sameEnding = "00000000-0000-4000-8000-99d65f608138"
        try store.record(batch: [
            try TestChains.transaction(id: "2000000000000001", price: 990, account: account),
            try TestChains.transaction(id: "2000000000000002", price: 1990, account: sameEnding),
        ])

        let restore = try store.ledger.restore(account: account, includeAll: true)

        #expect(restore.transactions.map(\.transactionId) == ["2000000000000001"])
        #expect(restore.totals.map(\.netMilli) == [990])
        #expect(try store.ledger.restore(account: sameEnding, includeAll: true).totals.map(\.netMilli) == [1990])
    }

    @Test func appTransactionIdsThatEndAlikeAreToldApart() throws {
        let store = try TestLedger()
        try store.record(batch: [
            try TestChains.transaction(id: "2000000000000001", price: 990, account: nil) {
                $0.appTransactionId = "704897469903383919"
            },
            try TestChains.transaction(id: "2000000000000002", price: 1990, account: nil) {
                $0.appTransactionId = "111111119903383919"
            },
        ])

        let restore = try store.ledger.restore(appTransactionId: "704897469903383919", includeAll: true)

        #expect(restore.transactions.map(\.transactionId) == ["2000000000000001"])
        #expect(restore.totals.map(\.netMilli) == [990])
    }

    /// A stored token whose digest starts with the same 8 bytes as a new token's is another
    /// token: the new one is stored and recorded, not taken for a repeat.
    @Test func aDigestSharingItsFirstEightBytesIsAnotherToken() throws {
        let store = try TestLedger()
        let token = try TestChains.transaction(id: "2000000000000001")
        let digest = SHA256.hash(token.utf8)
        let decoy = Array(digest.prefix(8)) + [UInt8](repeating: 0xff, count: 24)
        try store.ledger.withDatabase { database in
            try database.run("INSERT INTO jws_headers (id, sha256, header) VALUES (99, ?, 'decoy')", decoy)
            try database.run(
                """
                INSERT INTO evidence (sha256, kind, header_id, body, environment, verifier_fingerprint, clock_free,
                    received_ms)
                VALUES (?, 'transaction', 99, 'decoy', 'Sandbox', ?, 1, 0)
                """, decoy, TestChains.standardVerifier.fingerprint)
        }
        #expect(
            try store.ledger.knownToken(
                digest, verifierFingerprint: TestChains.standardVerifier.fingerprint, finishing: true) == nil)

        let result = try store.record(token)

        #expect(result.outcome == .recorded)
        #expect(try store.count("evidence") == 2)
        #expect(try store.record(token).outcome == .duplicate)
        #expect(try store.count("evidence") == 2)
        #expect(
            try store.ledger.integer("SELECT count(*) FROM evidence WHERE sha256 = ?", [digest]) == 1)
    }
}
