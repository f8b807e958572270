// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerStore

extension ReportRendering {
    /// Rows of the report's own table the page shows at most (grouped by account or by day, a
    /// report may have thousands): `Ledger.overview`'s `rowLimit`.
    public static let pageRows = 200
    /// Accounts of highest net the page lists per environment and currency: `Ledger.overview`'s
    /// `supporters`.
    public static let pageSupporters = 10
    /// What the page may load: nothing but its inline style (and its empty icon). The page
    /// carries it, and a server sending the page should send it too.
    public static let pageContentSecurityPolicy = ReportPageStyle.contentSecurityPolicy

    /// The report as one self-contained HTML page (docs/cli.md): headline figures per currency,
    /// charts of net tips over time, of tiers and storefronts and of supporters, the report's
    /// table and the open consumption requests. Inline CSS and SVG only: no script, and a
    /// Content-Security-Policy that forbids every request. Account ids are shortened, as the
    /// page may be shared.
    ///
    /// - Parameters:
    ///   - overview: `Ledger.overview` of `query`, whose report this rendering was made with.
    ///   - generated: when the page is made (milliseconds since 1970): the deadlines of the
    ///     consumption requests are counted from it.
    public func html(_ overview: ReportOverview, query: ReportQuery, generated: Int64) -> String {
        let page = ReportPage(rendering: self, overview: overview, query: query, generated: generated)
        return page.write()
    }
}
