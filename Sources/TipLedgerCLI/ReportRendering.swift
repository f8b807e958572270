// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// A report in the three output formats (JSON shared with the HTTP route).
struct ReportRendering {
    let report: Report
    let grouping: ReportGrouping
    let commission: Double?
    let catalog: StoreKitCatalog?

    private func proceeds(_ row: ReportRow) -> Int64? {
        commission.map { row.estimatedProceedsMilli(commission: $0) }
    }

    private var groupField: String? { grouping == .currency ? nil : grouping.rawValue }

    var json: String {
        LedgerJSON.report(report, grouping: grouping, commission: commission, catalog: catalog)
    }

    var csv: String {
        var header = ["environment"]
        if let groupField { header.append(groupField) }
        header += ["currency", "transactions", "units", "gross_milli", "refunded_milli", "revoked_milli", "net_milli"]
        if commission != nil { header.append("estimated_proceeds_milli") }
        var lines = [header.joined(separator: ",")]
        for row in report.rows {
            var cells = [row.environment.rawValue]
            if groupField != nil { cells.append(Self.csvCell(row.group ?? "")) }
            cells += [
                Self.csvCell(row.currency ?? ""), String(row.transactions), String(row.units), String(row.grossMilli),
                String(row.refundedMilli), String(row.revokedMilli), String(row.netMilli),
            ]
            if let proceeds = proceeds(row) { cells.append(String(proceeds)) }
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A text cell (a product, a storefront, a currency: signed fields, which may carry
    /// anything) as CSV, safe to open in a spreadsheet, following OWASP's advice on CSV
    /// injection:
    /// - control characters are escaped (`PrintableText`), so a cell holds no line break, and
    ///   neither a tab nor a carriage return (which OWASP lists too) can start it;
    /// - a cell starting with `=`, `+`, `-` or `@`, which a spreadsheet would run as a formula,
    ///   gets a leading `'`;
    /// - a cell holding a comma, a quote or a semicolon (the separator of some locales, where
    ///   `a;=cmd` would split into a formula cell) is quoted as RFC 4180 says.
    static func csvCell(_ text: String) -> String {
        var cell = PrintableText.escaped(text)
        if let first = cell.first, "=+-@".contains(first) { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == ";" }) else { return cell }
        return "\"" + cell.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    var text: String {
        guard !report.rows.isEmpty else {
            return "no transactions\n" + consumptionText
        }
        var output = ""
        for environment in Set(report.rows.map(\.environment)).sorted() {
            output += "\(environment.rawValue)\n"
            var headers = [
                groupField ?? "", "currency", "transactions", "units", "gross", "refunded", "revoked", "net",
            ]
            if commission != nil { headers.append("proceeds (estimate)") }
            if groupField == nil { headers.removeFirst() }
            let numeric = Set((headers.count - (commission != nil ? 7 : 6))..<headers.count)
            var table = TextTable(headers: headers, rightAligned: numeric)
            for row in report.rows where row.environment == environment {
                var cells: [String] = []
                if groupField != nil {
                    var group = row.group ?? "-"
                    if grouping == .product, let name = catalog?.product(group)?.displayName { group += " (\(name))" }
                    cells.append(group)
                }
                cells += [row.currency ?? "-", String(row.transactions), String(row.units)]
                let amounts =
                    [row.grossMilli, row.refundedMilli, row.revokedMilli, row.netMilli]
                    + [proceeds(row)]
                    .compactMap { $0 }
                cells += Money.decimals(amounts, currency: row.currency)
                table.add(cells)
            }
            output += table.render(indent: "  ") + "\n"
        }
        if let commission {
            output +=
                "proceeds are an estimate at a \(Self.percent(commission)) commission; taxes are not subtracted\n"
        }
        return output + consumptionText
    }

    /// `rate` as a percentage the way it was most likely written, in plain digits: 0.07 is "7%"
    /// (not the 7.000000000000001 that multiplying gives), 0.145 is "14.5%", to a millionth of
    /// a percent at most.
    static func percent(_ rate: Double) -> String {
        let millionths = Int64((rate * 100 * 1_000_000).rounded())
        guard millionths > 0 || rate <= 0 else { return "less than 0.000001%" }
        let whole = millionths / 1_000_000
        var fraction = String(millionths % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole)%" : "\(whole).\(fraction)%"
    }

    private var consumptionText: String {
        let requests = report.openConsumptionRequests
        guard !requests.isEmpty else { return "open consumption requests: none\n" }
        var table = TextTable(headers: ["environment", "transaction", "reason", "answer by (UTC)"])
        for request in requests {
            table.add([
                request.environment.rawValue, request.transactionId, request.reason ?? "-",
                ISODate.minutes(request.deadlineMilliseconds),
            ])
        }
        return "open consumption requests: \(requests.count)\n" + table.render(indent: "  ")
    }
}
