// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
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
          --format FORMAT     text, json, csv or html (csv holds the rows alone: one table,
                              without the consumption requests; a text cell starting with
                              = + - or @ gets a leading ' so that a spreadsheet does not run it)

        --format html writes one page to open in a browser: headline figures per currency,
        charts of net tips over time (by day, week or month), per tier and storefront, and of
        supporters (account ids shortened), the table and the open consumption requests. It
        needs no script and makes no request. Redirect it to a file:
          tipledger report --format html --commission 15% > tips.html

        """

    let query: ReportQuery
    let commission: CommissionRate?
    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        do {
            query = try ReportQuery(
                by: scanner.value("--by"), since: scanner.value("--since"), until: scanner.value("--until"),
                environments: globals.givenEnvironments)
            commission = try scanner.value("--commission").map { (text) throws(ReportQuery.ParameterError) in
                try CommissionRate(parsing: text)
            }
        } catch let error as ReportQuery.ParameterError {
            throw CLIError.usage(
                "--\(error.parameter) takes \(error.expected), not '\(error.given)'", command: Self.name)
        }
        format = try globals.format(allowing: [.text, .json, .csv, .html], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        // Like gzip, which writes no compressed data to a terminal: a page of markup scrolling
        // by is of no use to anyone.
        if format == .html && context.terminal.outputIsTerminal {
            throw CLIError(
                .usage, "the page is HTML for a browser; redirect it to a file",
                hint: "tipledger report --format html > tips.html, then open tips.html")
        }
        let ledger = try context.openLedger(.read)
        let catalog = try context.globals.loadCatalog(warningsTo: context.terminal)
        let now = context.clock.now().wholeMilliseconds
        func rendering(_ report: Report) -> ReportRendering {
            ReportRendering(report: report, grouping: query.grouping, commission: commission, catalog: catalog)
        }
        switch format {
        case .html:
            let overview = try ledger.overview(
                query, now: now, rowLimit: ReportRendering.pageRows, supporters: ReportRendering.pageSupporters)
            context.terminal.write(rendering(overview.report).html(overview, query: query, generated: now))
        case .json: context.terminal.line(rendering(try ledger.report(query, now: now)).json)
        case .csv: context.terminal.write(rendering(try ledger.report(query, now: now)).csv)
        case .text: context.terminal.write(rendering(try ledger.report(query, now: now)).text)
        }
        return .success
    }
}
