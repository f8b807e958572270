// SPDX-License-Identifier: GPL-3.0-or-later

extension ReportRendering {
    /// The rows alone, one table: a header line, then one line per row, amounts in milliunits;
    /// by product with a catalog, the product's name beside its id (empty when the catalog has
    /// none for it).
    public var csv: String {
        let named = grouping == .product && catalog != nil
        var header = ["environment"]
        if let groupField { header.append(groupField) }
        if named { header.append("product_name") }
        header += ["currency", "transactions", "units", "gross_milli", "refunded_milli", "revoked_milli", "net_milli"]
        if commission != nil { header.append("estimated_proceeds_milli") }
        var lines = [header.joined(separator: ",")]
        for row in report.rows {
            var cells = [row.environment.rawValue]
            if groupField != nil { cells.append(CSV.cell(row.group ?? "")) }
            if named { cells.append(CSV.cell(productName(row) ?? "")) }
            cells += [
                CSV.cell(row.currency ?? ""), String(row.transactions), String(row.units), String(row.grossMilli),
                String(row.refundedMilli), String(row.revokedMilli), String(row.netMilli),
            ]
            if let proceeds = proceeds(row) { cells.append(String(proceeds)) }
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
