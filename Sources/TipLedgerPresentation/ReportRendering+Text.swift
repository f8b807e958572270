// SPDX-License-Identifier: GPL-3.0-or-later

extension ReportRendering {
    /// A table per environment, amounts in decimal currency, then the open consumption requests.
    public var text: String {
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
                    if let name = productName(row) { group += " (\(name))" }
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
                "proceeds are an estimate at a \(commission.percent) commission; taxes are not subtracted\n"
        }
        return output + consumptionText
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
