// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `report`: per environment, group and currency; environments and currencies never added.
@Suite struct ReportTests {
    let hour = TestLedger.hour
    let day: Int64 = 86_400_000
    let reference = TestLedger.reference
    let account = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    @Test func quantityIsCountedInUnitsAndItsLineTotalPriceOnce() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(price: 2970) { $0.quantity = 3 })

        let rows = try store.ledger.report(ReportQuery(grouping: .product), now: reference).rows

        #expect(rows.count == 1)
        #expect(rows.first?.transactions == 1)
        #expect(rows.first?.units == 3)
        #expect(rows.first?.grossMilli == 2970)
        #expect(rows.first?.netMilli == 2970)
        #expect(try store.transaction("2000000000000001")?.quantity == 3)
    }

    /// The same product, storefront, account and day in Sandbox and Production: two rows in
    /// every grouping, never one.
    @Test(arguments: ReportGrouping.allCases)
    func environmentsAreKeptApartInEveryGrouping(grouping: ReportGrouping) throws {
        let store = try TestLedger(inMemory: true)
        try store.record(try TestChains.transaction(id: "2000000000000001", price: 990, environment: "Sandbox"))
        try store.record(try TestChains.transaction(id: "2000000000000002", price: 1990, environment: "Sandbox"))
        // The same transaction id in the other environment is another transaction.
        try store.record(try TestChains.transaction(id: "2000000000000001", price: 4990, environment: "Production"))

        let rows = try store.ledger.report(ReportQuery(grouping: grouping), now: reference).rows

        let expectedGroup: String? =
            switch grouping {
            case .product: "com.example.tips.small"
            case .currency: nil
            case .storefront: "USA"
            case .account: account
            case .day: "2026-01-01"
            case .month: "2026-01"
            }
        #expect(rows.map(\.environment) == [.production, .sandbox])
        #expect(rows.map(\.group) == [expectedGroup, expectedGroup])
        #expect(rows.map(\.currency) == ["USD", "USD"])
        #expect(rows.map(\.transactions) == [1, 2])
        #expect(rows.map(\.units) == [1, 2])
        #expect(rows.map(\.grossMilli) == [4990, 2980])
    }

    @Test(arguments: ReportGrouping.allCases)
    func currenciesAreNeverAddedTogether(grouping: ReportGrouping) throws {
        let store = try TestLedger(inMemory: true)
        try store.record(try TestChains.transaction(id: "2000000000000001", price: 990, currency: "USD"))
        try store.record(try TestChains.transaction(id: "2000000000000002", price: 990, currency: "EUR"))
        try store.record(try TestChains.transaction(id: "2000000000000003", price: 1990, currency: "EUR"))

        let rows = try store.ledger.report(ReportQuery(grouping: grouping), now: reference).rows

        #expect(rows.map(\.currency) == ["EUR", "USD"])
        #expect(rows.map(\.grossMilli) == [2980, 990])
    }

    @Test func rowsAreGroupedByEachGroupsValue() throws {
        let store = try TestLedger()
        try store.record(
            try TestChains.transaction(id: "2000000000000001", productId: "com.example.tips.small", price: 990))
        try store.record(
            try TestChains.transaction(
                id: "2000000000000002", productId: "com.example.tips.large", price: 9990, purchaseDate: reference + day,
                account: nil
            ) { $0.storefront = "DEU" })
        try store.record(
            try TestChains.transaction(
                id: "2000000000000003", productId: "com.example.tips.small", price: 990,
                purchaseDate: reference + 40 * day))

        let report = { (grouping: ReportGrouping) in
            try store.ledger.report(ReportQuery(grouping: grouping), now: self.reference).rows.map {
                "\($0.group ?? "-") \($0.transactions) \($0.grossMilli)"
            }
        }

        #expect(try report(.product) == ["com.example.tips.large 1 9990", "com.example.tips.small 2 1980"])
        #expect(try report(.storefront) == ["DEU 1 9990", "USA 2 1980"])
        #expect(try report(.account) == ["- 1 9990", "\(account) 2 1980"])
        #expect(try report(.day) == ["2026-01-01 1 990", "2026-01-02 1 9990", "2026-02-10 1 990"])
        #expect(try report(.month) == ["2026-01 2 10980", "2026-02 1 990"])
        #expect(try report(.currency) == ["- 3 11970"])
    }

    @Test func sinceIsInclusiveAndUntilExclusiveOnThePurchaseDate() throws {
        let store = try TestLedger()
        for (number, offset) in [-day, 0, day - 1, day].enumerated() {
            try store.record(
                try TestChains.transaction(
                    id: "200000000000000\(number)", price: 1000 + Int64(number), purchaseDate: reference + offset))
        }

        let rows = try store.ledger.report(
            ReportQuery(grouping: .currency, since: reference, until: reference + day), now: reference
        ).rows

        #expect(rows.map(\.transactions) == [2])
        #expect(rows.map(\.grossMilli) == [1001 + 1002])
    }

    @Test func environmentFilterKeepsOnlyThoseEnvironments() throws {
        let store = try TestLedger()
        try store.record(try TestChains.transaction(id: "2000000000000001", price: 990, environment: "Sandbox"))
        try store.record(try TestChains.transaction(id: "2000000000000002", price: 1990, environment: "Production"))

        let production = try store.ledger.report(
            ReportQuery(grouping: .product, environments: [.production]), now: reference
        ).rows
        let both = try store.ledger.report(
            ReportQuery(grouping: .product, environments: [.sandbox, .production]), now: reference
        ).rows

        #expect(production.map(\.environment) == [.production])
        #expect(production.map(\.grossMilli) == [1990])
        #expect(both.map(\.environment) == [.production, .sandbox])
    }

    @Test func reportRowsCarryGrossRefundedRevokedAndNet() throws {
        let store = try TestLedger()
        let refunded = try TestChains.transaction(id: "2000000000000001", price: 1990)
        let revoked = try TestChains.transaction(id: "2000000000000002", price: 2990)
        try store.record(batch: [refunded, revoked, try TestChains.transaction(id: "2000000000000003", price: 990)])
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + hour, around: refunded))
        try store.record(
            try TestChains.notification(
                type: "REVOKE", uuid: TestChains.uuid(2), signedDate: reference + hour, around: revoked))

        let row = try #require(try store.ledger.report(ReportQuery(grouping: .currency), now: reference).rows.first)

        #expect(row.transactions == 3)
        #expect(row.grossMilli == 5970)
        #expect(row.refundedMilli == 1990)
        #expect(row.revokedMilli == 2990)
        #expect(row.netMilli == 990)
    }
}
