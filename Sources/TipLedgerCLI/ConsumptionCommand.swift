// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger consumption`: lists the consumption requests Apple waits on, and answers the open
/// ones (Send Consumption Information v2) when the operator says customers consented.
struct ConsumptionCommand: Command {
    static let name = "consumption"
    static let summary = "list consumption requests and answer them for Apple's refund decision"
    static let usage = """
        Usage: tipledger consumption [--dry-run] [--all] [--customers-consented]
                                     [--refund-preference P]

        When a customer asks for a refund, Apple may send a CONSUMPTION_REQUEST and wait 12
        hours for your side: this answers each open request once, from the ledger (delivered
        and wholly consumed when the app finished the tip, undelivered otherwise; no sample
        content), and records the answer, its time and Apple's status. Apple takes answers
        only when your customers consented to sharing the data: without --customers-consented
        nothing is sent. A request past its deadline, or one Apple decided (a REFUND or
        REFUND_DECLINED came), is not answered. Then the requests are listed with their
        answers. 'serve' answers new requests by itself.

        Options:
          --dry-run             print the answers that would be sent; send nothing
          --all                 list every request, not only those before their deadline

        Exit status 0 when every answer was taken, 1 when Apple refused one, 69 when Apple
        could not be reached (run it again before the deadline).

        """ + "\n" + ConsumptionPolicy.usage + "\n\n" + APIOptions.usage + "\n"

    let dryRun: Bool
    let all: Bool
    let format: GlobalOptions.Format
    let policy: ConsumptionPolicy.Flags
    let api: APIOptions
    let environments: [AppStoreEnvironment]?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text, .json], command: Self.name)
        dryRun = scanner.flag("--dry-run")
        all = scanner.flag("--all")
        policy = try ConsumptionPolicy.Flags(parsing: &scanner)
        api = try APIOptions(parsing: &scanner)
        environments = globals.givenEnvironments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let policy = try self.policy.resolve(environment: context.environment, command: Self.name)
        let ledger = try context.openLedger(dryRun ? .read : .update)
        let answerer = ConsumptionAnswerer(ledger: ledger, policy: policy)
        let now = context.clock.now()
        let open = try answerer.open(now: now).filter { environments?.contains($0.environment) ?? true }
        var results: [(ConsumptionRequestRecord, ConsumptionAnswerer.Result)] = []
        // A dry run's answers, by request, and why a request would get none.
        var drafts: [String: Result<String, ConsumptionAnswerer.Unanswerable>] = [:]
        if !open.isEmpty && !policy.customersConsented {
            context.terminal.errorLine(
                "not answering \(open.count) open consumption \(open.count == 1 ? "request" : "requests"): "
                    + "customers' consent to share consumption data is not configured, and Apple takes answers "
                    + "only with it")
            context.terminal.errorLine(
                "hint: once your customers consented (say so in the app's terms), pass --customers-consented or "
                    + "set TIPLEDGER_CUSTOMERS_CONSENTED=1")
        } else if !open.isEmpty && dryRun {
            for request in open { drafts[request.notificationUUID] = draft(request, answerer: answerer) }
            if format == .text {
                for request in open { printDraft(request, drafts[request.notificationUUID]!, context) }
            }
        } else if !open.isEmpty {
            let connection = try api.connect(
                context, command: Self.name, observer: AppStoreConnection.notes(on: context.terminal))
            results = try answerer.answer(open, connection: connection)
            if format == .text {
                for (request, result) in results { printResult(request, result, context) }
            }
        }
        let listed = try ledger.consumptionRequests(now: now, includeAll: all, environments: environments)
        let wouldSend = drafts.compactMapValues { try? $0.get() }
        let rendering = ConsumptionRendering(requests: listed, now: now, wouldSend: wouldSend, all: all)
        switch format {
        case .text: context.terminal.write(rendering.text)
        case .json, .csv, .html: for line in rendering.jsonLines { context.terminal.line(line) }
        }
        for (_, result) in results {
            if case .failed(_, let error) = result { throw error.cliError }
        }
        let refused = results.contains { if case .refused = $0.1 { true } else { false } }
        return refused ? .rejected : .success
    }

    /// The body a dry run would send for `request`, or why it would send none.
    private func draft(_ request: ConsumptionRequestRecord, answerer: ConsumptionAnswerer) -> Result<
        String, ConsumptionAnswerer.Unanswerable
    > {
        answerer.answer(for: request).flatMap { answer in
            guard let body = try? answer.body() else {
                return .failure(ConsumptionAnswerer.Unanswerable("Apple would refuse the answer the ledger gives"))
            }
            return .success(String(decoding: body, as: UTF8.self))
        }
    }

    private func printDraft(
        _ request: ConsumptionRequestRecord, _ draft: Result<String, ConsumptionAnswerer.Unanswerable>,
        _ context: CommandContext
    ) {
        switch draft {
        case .success(let body):
            context.terminal.line(
                "would answer (\(request.environment.rawValue)): PUT /inApps/v2/transactions/consumption/"
                    + "\(request.transactionId) \(body)")
        case .failure(let why):
            context.terminal.line("would not answer \(request.transactionId): \(why.reason)")
        }
    }

    private func printResult(
        _ request: ConsumptionRequestRecord, _ result: ConsumptionAnswerer.Result, _ context: CommandContext
    ) {
        let subject = "\(request.environment.rawValue) transaction \(request.transactionId)"
        switch result {
        case .accepted(let status, let body):
            context.terminal.line("answered \(subject): Apple took it (\(status)): \(body)")
        case .refused(let status, let body, let error):
            context.terminal.line("answered \(subject): Apple refused it (\(status)): \(body)")
            context.terminal.errorLine("error: \(error.message)")
        case .failed(_, let error):
            context.terminal.line("not answered \(subject): \(error.code.rawValue); it is tried again next time")
        case .skipped(let reason):
            context.terminal.line("not answered \(subject): \(reason)")
        }
    }
}
