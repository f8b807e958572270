// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `overview`: the aggregates the report page charts, as SQL sums that agree with `report`.
@Suite struct OverviewTests {
    let day: Int64 = 86_400_000
    let reference = TestLedger.reference  // 2026-01-01, a Thursday
    let first = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    let second = "0d9a1f5e-7c1b-4d8e-9f3a-2b6c8e4a1d07"
    let third = "5b2c7d1e-9a4f-4e3b-8c6d-1f0e2a3b4c5d"

    /// Six tips of three accounts over three weeks in dollars and euros, one refunded.
    func ledger() throws -> TestLedger {
        let store = try TestLedger()
        let tips: [(String, String, Int64, String, Int64, String?, String)] = [
            ("2000000000000001", "tip.small", 990, "USD", 0, first, "USA"),
            ("2000000000000002", "tip.large", 9990, "USD", 3, first, "USA"),
            ("2000000000000003", "tip.small", 990, "USD", 4, second, "USA"),
            ("2000000000000004", "tip.small", 1190, "EUR", 5, third, "DEU"),
            ("2000000000000005", "tip.large", 10990, "EUR", 12, first, "DEU"),
            ("2000000000000006", "tip.small", 990, "USD", 19, nil, "USA"),
        ]
        for (id, product, price, currency, days, account, storefront) in tips {
            try store.record(
                try TestChains.transaction(
                    id: id, productId: product, price: price, currency: currency,
                    purchaseDate: reference + days * day + 3_600_000, account: account
                ) { $0.storefront = storefront })
        }
        let refunded = try TestChains.transaction(
            id: "2000000000000002", productId: "tip.large", price: 9990, purchaseDate: reference + 3 * day + 3_600_000,
            account: first)
        try store.record(
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + 20 * day, around: refunded))
        return store
    }

    func overview(_ store: TestLedger, _ query: ReportQuery = ReportQuery(), supporters: Int = 10) throws
        -> ReportOverview
    {
        try store.ledger.overview(query, now: reference, rowLimit: 100, supporters: supporters)
    }

    /// Weeks start on Monday: 2026-01-01 is a Thursday, in the week of 2025-12-29.
    @Test func theSeriesCountsEachProductPerPeriod() throws {
        let overview = try overview(try ledger())

        #expect(overview.period == .day)
        #expect(overview.firstPurchase == reference + 3_600_000)
        #expect(overview.lastPurchase == reference + 19 * day + 3_600_000)
        let series = overview.series.map {
            "\($0.totals.currency ?? "-") \($0.start ?? "-") \($0.totals.group ?? "-") \($0.totals.transactions) "
                + "\($0.totals.grossMilli) \($0.totals.refundedMilli)"
        }
        #expect(
            series == [
                "EUR 2026-01-06 tip.small 1 1190 0", "EUR 2026-01-13 tip.large 1 10990 0",
                "USD 2026-01-01 tip.small 1 990 0", "USD 2026-01-04 tip.large 1 9990 9990",
                "USD 2026-01-05 tip.small 1 990 0", "USD 2026-01-20 tip.small 1 990 0",
            ])
    }

    @Test(arguments: [
        (ReportPeriod.week, ["2025-12-29", "2026-01-05", "2026-01-12", "2026-01-19"]),
        (.month, ["2026-01-01"]), (.year, ["2026-01-01"]),
    ])
    func eachPeriodStartsOnItsFirstDay(_ period: ReportPeriod, _ starts: [String]) throws {
        let store = try ledger()
        let (filter, values) = Ledger.reportFilter(ReportQuery())
        let found = try store.ledger.texts(
            "SELECT DISTINCT \(period.startExpression) FROM transactions WHERE \(filter) ORDER BY 1", values)
        #expect(found == starts)
    }

    /// A few dozen periods whatever the span.
    @Test(arguments: [
        (Int64(0), ReportPeriod.day), (44, .day), (45, .week), (279, .week), (280, .month), (8 * 365 - 1, .month),
        (8 * 365, .year),
    ])
    func thePeriodFitsTheSpan(_ days: Int64, _ period: ReportPeriod) {
        #expect(ReportPeriod.fitting(first: reference, last: reference + days * day + day - 1) == period)
    }

    /// Totals, products and storefronts are the report's own rows in those groupings, and the
    /// series adds up to the totals.
    @Test func everyAggregateAgreesWithTheReport() throws {
        let store = try ledger()
        let overview = try overview(store)
        func report(_ grouping: ReportGrouping) throws -> [ReportRow] {
            try store.ledger.report(ReportQuery(grouping: grouping), now: reference).rows
        }

        #expect(try overview.report.rows == report(.product))
        #expect(try overview.totals == report(.currency))
        #expect(try overview.products == report(.product))
        #expect(try overview.storefronts == report(.storefront))
        for total in overview.totals {
            let rows = overview.series.map(\.totals).filter { $0.currency == total.currency }
            #expect(rows.reduce(0) { $0 + $1.netMilli } == total.netMilli)
            #expect(rows.reduce(0) { $0 + $1.transactions } == total.transactions)
        }
    }

    /// The first account tipped three times, the others once; the tip without an account is in
    /// no row.
    @Test func accountsAreCountedByTheirNumberOfTips() throws {
        let overview = try overview(try ledger())

        #expect(overview.tipCounts.map { "\($0.tips) \($0.accounts)" } == ["1 2", "3 1"])
    }

    /// Highest net first in each currency, refunds subtracted; ties by more tips.
    @Test func topSupportersAreRankedByNetInEachCurrency() throws {
        let store = try ledger()

        let all = try overview(store).topSupporters.map {
            "\($0.currency ?? "-") \($0.account.prefix(4)) \($0.transactions) \($0.netMilli)"
        }
        #expect(all == ["EUR 7e3f 1 10990", "EUR 5b2c 1 1190", "USD 7e3f 2 990", "USD 0d9a 1 990"])
        let top = try overview(store, supporters: 1).topSupporters.map {
            "\($0.currency ?? "-") \($0.account.prefix(4))"
        }
        #expect(top == ["EUR 7e3f", "USD 7e3f"])
    }

    /// The query's dates and environments hold for every aggregate, the span and the period.
    @Test func theFiltersHoldForEveryAggregate() throws {
        let store = try ledger()
        let query = ReportQuery(grouping: .product, since: reference + 4 * day, until: reference + 13 * day)
        let overview = try overview(store, query)

        #expect(overview.totals.map(\.transactions) == [2, 1])
        #expect(overview.series.count == 3)
        #expect(overview.products.reduce(0) { $0 + $1.transactions } == 3)
        #expect(overview.storefronts.reduce(0) { $0 + $1.transactions } == 3)
        #expect(overview.tipCounts.map { "\($0.tips) \($0.accounts)" } == ["1 3"])
        #expect(overview.topSupporters.count == 3)
        #expect(overview.firstPurchase == reference + 4 * day + 3_600_000)

        let production = try self.overview(store, ReportQuery(environments: [.production]))
        #expect(production.totals.isEmpty && production.series.isEmpty && production.tipCounts.isEmpty)
        #expect(production.firstPurchase == nil)
    }

    /// Grouped by account, the report has a row per account: the overview keeps the first
    /// `rowLimit` and says that there were more.
    @Test func theReportsRowsAreCutAtTheLimit() throws {
        let store = try ledger()

        let cut = try store.ledger.overview(ReportQuery(grouping: .account), now: reference, rowLimit: 2, supporters: 1)
        let whole = try store.ledger.overview(
            ReportQuery(grouping: .account), now: reference, rowLimit: 8, supporters: 1)

        #expect(cut.report.rows.count == 2 && cut.reportIsCut)
        #expect(whole.report.rows.count == 5 && !whole.reportIsCut)
        #expect(Array(whole.report.rows.prefix(2)) == cut.report.rows)
    }
}
