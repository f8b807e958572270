// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger report`: tip totals per environment, group and currency.
struct ReportCommand: Command {
    static let name = "report"
    static let summary = "tip totals per environment, product (or other group) and currency"
    static let usage = """
        Usage: tipledger report [--by GROUP] [--since DATE] [--until DATE] [--commission RATE]

        Prints, per environment, group and currency: transactions, units, gross, refunded,
        revoked and net, and the consumption requests Apple is still waiting on. Currencies
        and environments are never added together. Amounts are decimal in text and integer
        milliunits in JSON and CSV (9990 = 9.99). Dates are purchase dates in UTC.

        Options:
          --by GROUP          product (default), currency, storefront, account, day or month
          --since DATE        purchases on or after DATE (2025-10-01 or 2025-10-01T07:00:00Z)
          --until DATE        purchases before DATE; a plain date includes that whole day
          --commission RATE   also show estimated proceeds after Apple's commission,
                              e.g. 0.15 or 15% (an estimate: taxes and rounding differ)
          --environment LIST  only these environments (default: TIPLEDGER_ENVIRONMENT's when
                              it is set, else all in the ledger)
          --format FORMAT     text, json or csv (csv holds the rows alone: one table, without
                              the consumption requests)

        """

    let query: ReportQuery
    let commission: Double?
    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        do {
            query = try ReportQuery(
                by: scanner.value("--by"), since: scanner.value("--since"), until: scanner.value("--until"),
                environments: globals.givenEnvironments)
            commission = try scanner.value("--commission").map { (text) throws(ReportQuery.ParameterError) in
                try ReportQuery.commissionRate(text)
            }
        } catch let error as ReportQuery.ParameterError {
            throw CLIError.usage(
                "--\(error.parameter) takes \(error.expected), not '\(error.given)'", command: Self.name)
        }
        format = try globals.format(allowing: [.text, .json, .csv], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let ledger = try context.openLedger(mustExist: true)
        let catalog = try context.globals.loadCatalog()
        let report = try ledger.report(query, now: context.clock.now().wholeMilliseconds)
        let rendering = ReportRendering(
            report: report, grouping: query.grouping, commission: commission, catalog: catalog)
        switch format {
        case .json: context.terminal.line(rendering.json)
        case .csv: context.terminal.write(rendering.csv)
        case .text: context.terminal.write(rendering.text)
        }
        return .success
    }
}

/// A report in the three output formats (JSON shared with the HTTP route).
struct ReportRendering {
    let report: Report
    let grouping: ReportGrouping
    let commission: Double?
    let catalog: Catalog?

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

    /// RFC 4180 quoting, and a leading quote for cells a spreadsheet would run as a formula.
    static func csvCell(_ text: String) -> String {
        var cell = text
        if let first = cell.first, "=+-@".contains(first) { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
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
