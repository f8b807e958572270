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
          --environment LIST  only these environments (default: all in the ledger)
          --format FORMAT     text, json or csv

        """

    let query: ReportQuery
    let commission: Double?
    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        var query = ReportQuery()
        if let by = try scanner.value("--by") {
            guard let grouping = ReportGrouping(rawValue: by) else {
                throw CLIError.usage(
                    "--by must be one of \(ReportGrouping.allCases.map(\.rawValue).joined(separator: ", ")), not '\(by)'",
                    command: Self.name)
            }
            query.grouping = grouping
        }
        query.since = try Self.date(scanner.value("--since"), option: "--since", endOfDay: false)
        query.until = try Self.date(scanner.value("--until"), option: "--until", endOfDay: true)
        if let since = query.since, let until = query.until, since >= until {
            throw CLIError.usage("--since must be before --until", command: Self.name)
        }
        if globals.environmentsWereGiven { query.environments = globals.environments.sorted() }
        self.query = query
        commission = try Self.rate(scanner.value("--commission"))
        format = try globals.format(allowing: [.text, .json, .csv], command: Self.name)
    }

    private static func date(_ text: String?, option: String, endOfDay: Bool) throws -> Int64? {
        guard let text else { return nil }
        guard let date = AppleDate.parse(text) else {
            throw CLIError.usage(
                "\(option) takes a date like 2025-10-01 or 2025-10-01T07:00:00Z, not '\(text)'", command: name)
        }
        let isPlainDay = text.utf8.count == 10
        return date.wholeMilliseconds + (endOfDay && isPlainDay ? 86_400_000 : 0)
    }

    private static func rate(_ text: String?) throws -> Double? {
        guard var text else { return nil }
        var scale = 1.0
        if text.hasSuffix("%") {
            text.removeLast()
            scale = 100
        }
        guard let value = Double(text), value.isFinite, value >= 0, value / scale < 1 else {
            throw CLIError.usage("--commission takes a rate such as 0.15 or 15%, below 100%", command: name)
        }
        return value / scale
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let ledger = try context.globals.openLedger(clock: context.clock, mustExist: true)
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

    /// Net after the commission, rounded half up to a cent (10 milliunits): an estimate, as
    /// Apple's own rounding and taxes differ.
    private func proceeds(_ row: ReportRow) -> Int64? {
        commission.map { Int64((Double(row.netMilli) * (1 - $0) / 10).rounded(.toNearestOrAwayFromZero)) * 10 }
    }

    private var groupField: String? { grouping == .currency ? nil : grouping.rawValue }

    var json: String {
        var writer = JSONWriter()
        writer.object { object in
            object.array("rows", report.rows) { entry, row in
                entry.field("environment", row.environment.rawValue)
                if let groupField { entry.field(groupField, row.group) }
                if grouping == .product, let name = row.group.flatMap({ catalog?.product($0)?.displayName }) {
                    entry.field("productName", name)
                }
                entry.field("currency", row.currency)
                entry.field("transactions", row.transactions)
                entry.field("units", row.units)
                entry.field("gross_milli", row.grossMilli)
                entry.field("refunded_milli", row.refundedMilli)
                entry.field("revoked_milli", row.revokedMilli)
                entry.field("net_milli", row.netMilli)
                if let proceeds = proceeds(row) { entry.field("estimated_proceeds_milli", proceeds) }
            }
            if let commission { object.field("commissionRate", commission) }
            object.array("openConsumptionRequests", report.openConsumptionRequests) { entry, request in
                entry.field("environment", request.environment.rawValue)
                entry.field("transactionId", request.transactionId)
                entry.field("reason", request.reason)
                entry.field("deadline", request.deadlineMilliseconds)
            }
        }
        return writer.text
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
                cells += [
                    row.currency ?? "-", String(row.transactions), String(row.units),
                    Money.decimal(row.grossMilli, currency: row.currency),
                    Money.decimal(row.refundedMilli, currency: row.currency),
                    Money.decimal(row.revokedMilli, currency: row.currency),
                    Money.decimal(row.netMilli, currency: row.currency),
                ]
                if let proceeds = proceeds(row) { cells.append(Money.decimal(proceeds, currency: row.currency)) }
                table.add(cells)
            }
            output += table.render(indent: "  ") + "\n"
        }
        if let commission {
            output += "proceeds are an estimate at a \(commission * 100)% commission; taxes are not subtracted\n"
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
