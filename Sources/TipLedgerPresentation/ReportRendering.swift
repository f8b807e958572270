// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

/// A report as `report` and `GET /v1/report` show it (docs/cli.md, docs/http.md): in JSON, the
/// same from both, in CSV and in text, one file per format.
public struct ReportRendering {
    let report: Report
    let grouping: ReportGrouping
    /// The commission rate proceeds are estimated at; nil for no estimate.
    let commission: CommissionRate?
    /// Names products, when given.
    let catalog: StoreKitCatalog?

    public init(report: Report, grouping: ReportGrouping, commission: CommissionRate?, catalog: StoreKitCatalog?) {
        self.report = report
        self.grouping = grouping
        self.commission = commission
        self.catalog = catalog
    }

    /// The estimated proceeds of `row`, with a commission rate.
    func proceeds(_ row: ReportRow) -> Int64? {
        commission.map { $0.estimatedProceedsMilli(of: row) }
    }

    /// The catalog's name of the product a row of a report by product is about; nil in other
    /// groupings, without a catalog, or for a product the catalog lacks or leaves unnamed.
    func productName(_ row: ReportRow) -> String? {
        guard grouping == .product, let id = row.group else { return nil }
        return catalog?.product(id)?.displayName
    }

    /// The name of the group's field or column: none when grouping by currency, which every
    /// row shows anyway.
    var groupField: String? { grouping == .currency ? nil : grouping.rawValue }
}
