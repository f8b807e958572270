// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `restore`: an account's tips by `appAccountToken` or `appTransactionId`.
@Suite struct RestoreTests {
    let hour = TestLedger.hour
    let reference = TestLedger.reference
    let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    let otherAccount = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

    /// One account with a tip of every state, plus tips of another account, currency and
    /// environment.
    func ledgerWithEveryState() throws -> TestLedger {
        let store = try TestLedger()
        let refunded = try TestChains.transaction(id: "2000000000000002", price: 1990, purchaseDate: reference + 2)
        let prorated = try TestChains.transaction(id: "2000000000000003", price: 9990, purchaseDate: reference + 3)
        let revoked = try TestChains.transaction(id: "2000000000000004", price: 2990, purchaseDate: reference + 4)
        try store.record(
            batch: [
                try TestChains.transaction(id: "2000000000000001", price: 990, purchaseDate: reference + 1),
                refunded, prorated, revoked,
                try TestChains.transaction(
                    id: "2000000000000006", price: 490, currency: "EUR", purchaseDate: reference + 6),
                try TestChains.transaction(
                    id: "2000000000000007", price: 4990, environment: "Production", purchaseDate: reference + 7),
                try TestChains.transaction(id: "2000000000000008", price: 100, account: otherAccount),
            ])
        try store.record(
            try TestChains.transaction(id: "2000000000000005", price: 490, purchaseDate: reference + 5), finish: false)
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + hour, around: refunded))
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(2), signedDate: reference + hour, around: prorated,
                revocationPercentage: 50000))
        try store.record(
            try TestChains.notification(
                type: "REVOKE", uuid: TestChains.uuid(3), signedDate: reference + hour, around: revoked))
        return store
    }

    @Test func defaultListHoldsTipsNotRefundedOrRevoked() throws {
        let store = try ledgerWithEveryState()

        let restore = try store.ledger.restore(account: account, includeAll: false)

        #expect(
            restore.transactions.map { "\($0.transactionId) \($0.state.rawValue)" } == [
                "2000000000000001 finished", "2000000000000005 pending", "2000000000000006 finished",
                "2000000000000007 finished",
            ])
    }

    @Test func allListHoldsEveryTipWithItsState() throws {
        let store = try ledgerWithEveryState()

        let restore = try store.ledger.restore(account: account, includeAll: true)

        #expect(
            restore.transactions.map { "\($0.transactionId) \($0.state.rawValue) \($0.netMilli)" } == [
                "2000000000000001 finished 990", "2000000000000002 refunded 0", "2000000000000003 refunded 4995",
                "2000000000000004 revoked 0", "2000000000000005 pending 490", "2000000000000006 finished 490",
                "2000000000000007 finished 4990",
            ])
        let refunded = try #require(restore.transactions.first { $0.transactionId == "2000000000000002" })
        #expect(refunded.revocationDateMilliseconds == reference + hour)
        #expect(refunded.revocationReason == 0)
        #expect(refunded.priceMilli == 1990)
        #expect(refunded.account == account)
    }

    /// Totals cover all the account's tips, whatever the list shows, per environment and
    /// currency.
    @Test(arguments: [false, true])
    func totalsCoverEveryTipPerEnvironmentAndCurrency(includeAll: Bool) throws {
        let store = try ledgerWithEveryState()

        let totals = try store.ledger.restore(account: account, includeAll: includeAll).totals

        #expect(
            totals == [
                NetTotal(environment: .production, currency: "USD", netMilli: 4990),
                NetTotal(environment: .sandbox, currency: "EUR", netMilli: 490),
                NetTotal(environment: .sandbox, currency: "USD", netMilli: 990 + 0 + 4995 + 0 + 490),
            ])
    }

    /// Limited to some environments, both the list and the totals leave the others out.
    @Test func environmentsLimitTheListAndTheTotals() throws {
        let store = try ledgerWithEveryState()

        let production = try store.ledger.restore(account: account, includeAll: true, environments: [.production])
        let sandbox = try store.ledger.restore(account: account, includeAll: false, environments: [.sandbox])
        let both = try store.ledger.restore(account: account, includeAll: false, environments: [.production, .sandbox])

        #expect(production.transactions.map(\.transactionId) == ["2000000000000007"])
        #expect(production.totals == [NetTotal(environment: .production, currency: "USD", netMilli: 4990)])
        #expect(
            sandbox.transactions.map(\.transactionId) == ["2000000000000001", "2000000000000005", "2000000000000006"])
        #expect(sandbox.totals.map(\.environment) == [.sandbox, .sandbox])
        let all = try store.ledger.restore(account: account, includeAll: false)
        #expect(both.transactions.map(\.transactionId) == all.transactions.map(\.transactionId))
        #expect(both.totals == all.totals)
    }

    @Test(arguments: [
        "7e3fb20b-4cdb-47cc-936d-99d65f608138", "7E3FB20B-4CDB-47CC-936D-99D65F608138",
        "7e3fb20b-4CDB-47cc-936D-99d65f608138",
    ])
    func accountIsMatchedWhateverItsCase(query: String) throws {
        let store = try TestLedger(inMemory: true)
        try store.record(try TestChains.transaction(id: "2000000000000001", account: account))
        try store.record(try TestChains.transaction(id: "2000000000000002", account: account.uppercased()))

        let restore = try store.ledger.restore(account: query, includeAll: false)

        #expect(restore.transactions.map(\.transactionId) == ["2000000000000001", "2000000000000002"])
        #expect(restore.transactions.map(\.account) == [account, account])
    }

    @Test func appTransactionIdFindsTipsWithoutAnAccountToken() throws {
        let store = try TestLedger()
        try store.record(
            try TestChains.transaction(id: "2000000000000001", account: nil) {
                $0.appTransactionId = "704897469903383919"
            })
        try store.record(
            try TestChains.transaction(id: "2000000000000002", account: nil) {
                $0.appTransactionId = "704897469903383920"
            })

        let restore = try store.ledger.restore(appTransactionId: "704897469903383919", includeAll: false)

        #expect(restore.transactions.map(\.transactionId) == ["2000000000000001"])
        #expect(restore.transactions.map(\.appTransactionId) == ["704897469903383919"])
        #expect(restore.totals.map(\.netMilli) == [990])
    }

    /// The list and the totals come from one snapshot: a tip committed after the list was read
    /// and before the totals were is in neither, though the ledger holds it once they are given.
    @Test func theListAndTheTotalsAgreeWhenATipIsRecordedBetweenThem() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: "2000000000100001", price: 990))
        let late = try TestChains.verified(try TestChains.transaction(id: "2000000000100002", price: 1990))
        var recordedBetween: RecordResult?

        let restore = try store.ledger.restore(column: "account", value: account, includeAll: true, environments: nil) {
            recordedBetween = try store.ledger.record(late, finish: true)
        }

        #expect(recordedBetween?.outcome == .recorded)
        #expect(restore.transactions.map(\.transactionId) == ["2000000000100001"])
        #expect(restore.totals.map(\.netMilli) == [990])
        #expect(restore.unlisted == 0)
        #expect(try store.ledger.restore(account: account, includeAll: true).totals.map(\.netMilli) == [2980])
    }

    @Test func unknownAccountHasNoTipsAndNoTotals() throws {
        let store = try ledgerWithEveryState()

        let restore = try store.ledger.restore(account: "11111111-2222-4333-8444-555555555555", includeAll: true)

        #expect(restore.transactions.isEmpty)
        #expect(restore.totals.isEmpty)
    }
}
