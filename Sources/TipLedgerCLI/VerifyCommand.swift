// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger verify`: verifies signed payloads from standard input, one per line, and (unless
/// `--dry-run`) records them in the ledger.
struct VerifyCommand: Command {
    static let name = "verify"
    static let summary = "verify signed transactions and notifications from standard input"
    static let usage = """
        Usage: tipledger verify [--dry-run] [--no-finish] < input

        Reads standard input one item per line: a signed transaction (JWS), a signed
        notification (JWS), or a notification webhook body {"signedPayload":"..."}. The kind is
        detected. Each line is verified against the trusted roots at its own signedDate, then
        recorded in the ledger, and one result is printed per line, in input order. Blank lines
        are skipped; a rejected line changes nothing and never stops the run. Lines are written
        to the ledger in batches; every result printed is already committed.

        Options:
          --dry-run      verify only; do not open or change the ledger
          --no-finish    record new transactions as pending (finish them later with 'finish')

        Exit status 0 when every line was accepted, 1 when at least one was rejected.

        Examples:
          tipledger verify --dry-run --environment Sandbox --bundle-id com.example.tips < jws.txt
          tipledger verify --format json --app-apple-id 1234567890 --bundle-id com.example.tips < day.txt

        """

    let dryRun: Bool
    let finish: Bool
    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        dryRun = scanner.flag("--dry-run")
        finish = !scanner.flag("--no-finish")
        format = try globals.format(allowing: [.text, .json], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let verifier = Verifier(
            trustStore: try context.globals.trustStore(),
            policy: try context.globals.verificationPolicy(command: Self.name), clock: context.clock)
        let ledger = dryRun ? nil : try context.globals.openLedger(clock: context.clock, mustExist: false)
        var reader = LineReader(
            fileDescriptor: context.inputDescriptor, maximumLineBytes: VerificationPolicy.maximumTokenBytes + 1024)
        var tally = Tally()
        var storeFailed = false
        var progress = Progress(terminal: context.terminal, clock: context.clock)
        try VerificationPipeline(verifier: verifier).run(&reader) { verified in
            let items = ledger == nil ? verified : verified.map(Self.refusingUnrecordable)
            let recordings = try ledger.map { try record(items, in: $0) } ?? Array(repeating: nil, count: items.count)
            for (item, recording) in zip(items, recordings) {
                var result = item.result
                var report = VerifyReport(line: item.line.number, result: result, recording: nil)
                switch recording {
                case .failure(let error)?:
                    storeFailed = true
                    report = VerifyReport(line: item.line.number, ledgerError: error)
                    result = .failure(VerificationError(.invalidPayload, "not recorded"))
                case .success(let recorded)?:
                    report = VerifyReport(line: item.line.number, result: result, recording: recorded)
                case nil:
                    break
                }
                emit(report, on: context.terminal)
                tally.count(result)
            }
            context.terminal.flush()
            progress.update(lines: tally.lines)
        }
        progress.finish()
        if let error = reader.readError {
            throw CLIError(.ioError, "reading standard input failed (errno \(error))")
        }
        if format == .text { context.terminal.line(tally.summary) }
        if storeFailed {
            throw CLIError(.ioError, "some lines could not be recorded in \(context.globals.databasePath)")
        }
        return tally.rejected > 0 ? .rejected : .success
    }

    /// Records the batch's verified items in one ledger transaction; nil for rejected lines.
    private func record(_ items: [VerificationPipeline.Item], in ledger: Ledger) throws -> [Result<
        RecordResult, StoreError
    >?] {
        let verified = items.compactMap { try? $0.result.get() }
        var results = try ledger.record(verified, finish: finish).makeIterator()
        return items.map { item in
            guard case .success = item.result else { return nil }
            return results.next()
        }
    }

    /// Turns a verified payload the ledger cannot key into a rejected line.
    private static func refusingUnrecordable(_ item: VerificationPipeline.Item) -> VerificationPipeline.Item {
        guard case .success(let payload) = item.result, let reason = Ledger.unrecordableReason(payload) else {
            return item
        }
        return VerificationPipeline.Item(line: item.line, result: .failure(reason))
    }

    private func emit(_ report: VerifyReport, on terminal: Terminal) {
        switch format {
        case .json, .csv: terminal.write(bytes: report.json)
        case .text: terminal.write(report.text)
        }
    }
}

/// Counts of accepted and rejected lines.
struct Tally {
    private(set) var accepted = 0
    private(set) var rejected = 0

    var lines: Int { accepted + rejected }

    mutating func count<Success>(_ result: Result<Success, VerificationError>) {
        switch result {
        case .success: accepted += 1
        case .failure: rejected += 1
        }
    }

    var summary: String { "\(lines) lines: \(accepted) accepted, \(rejected) rejected" }
}

/// A progress line on standard error, only when it is a terminal, at most twice a second.
struct Progress {
    let terminal: Terminal
    let clock: WallClock
    private let started: AppleDate
    private var lastShown: AppleDate
    private var shown = false

    init(terminal: Terminal, clock: WallClock) {
        self.terminal = terminal
        self.clock = clock
        self.started = clock.now()
        self.lastShown = started
    }

    mutating func update(lines: Int, of total: Int? = nil) {
        guard terminal.errorIsTerminal else { return }
        let now = clock.now()
        guard now.milliseconds - lastShown.milliseconds >= 500 else { return }
        lastShown = now
        shown = true
        let seconds = max((now.milliseconds - started.milliseconds) / 1000, 0.001)
        let count = total.map { "\(lines)/\($0)" } ?? "\(lines)"
        terminal.errorText("\r\(count) lines, \(Int(Double(lines) / seconds)) lines/s   ")
    }

    func finish() {
        if shown { terminal.errorText("\n") }
    }
}
