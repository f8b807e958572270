// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger verify`: verifies signed payloads from standard input, one per line, and (unless
/// `--dry-run`) records them in the ledger.
struct VerifyCommand: Command {
    static let name = "verify"
    static let summary = "verify signed transactions and notifications from standard input"
    static let usage = """
        Usage: tipledger verify [--dry-run] [--no-finish] [--commit-every LINES] < input

        Reads standard input one item per line: a signed transaction (JWS), a signed
        notification (JWS), or a notification webhook body {"signedPayload":"..."}. The kind is
        detected. Each line is verified against the trusted roots at its own signedDate, then
        recorded in the ledger, and one result is printed per line, in input order. Blank lines
        are skipped; a rejected line changes nothing and never stops the run. Lines are written
        to the ledger in batches; every result printed is already committed.

        Options:
          --dry-run             verify only; do not open or change the ledger
          --no-finish           record new transactions as pending (finish them later with
                                'finish')
          --commit-every LINES  commit (and print the results) once LINES lines are waiting,
                                a second after the first of them, or before waiting for
                                input (default 8192; fewer show results sooner, more record
                                a large input faster)

        Exit status 0 when every line was accepted, 1 when at least one was rejected.

        Examples:
          tipledger verify --dry-run --environment Sandbox --bundle-id com.example.tipjar < jws.txt
          tipledger verify --format json --app-apple-id 1234567890 --bundle-id com.example.tipjar < day.txt

        """

    let dryRun: Bool
    let finish: Bool
    let linesPerCommit: Int
    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        dryRun = scanner.flag("--dry-run")
        finish = !scanner.flag("--no-finish")
        linesPerCommit = try scanner.integer("--commit-every", in: 1...1_000_000) ?? PendingOutput.linesPerCommit
        format = try globals.format(allowing: [.text, .json], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let verifier = try context.verifier(for: Self.name)
        let ledger = dryRun ? nil : try context.openLedger(.record)
        var reader = LineReader(
            fileDescriptor: context.inputDescriptor, maximumLineBytes: VerificationPolicy.maximumInputBytes)
        var tally = Tally()
        var hints = RejectionHints()
        var progress = Progress(terminal: context.terminal, clock: context.clock)
        var outputLost = false
        let pipeline = try makePipeline(verifier, ledger: ledger)
        let recorder = ledger?.batchRecorder()
        // Needed only when repeats are answered from the ledger (see `verifyStaleRepeatsAgain`).
        var unseen: UnseenChanges? = pipeline.knownTokens == nil ? nil : UnseenChanges()
        // The results of the lines since the last commit, printed once it is done: every result
        // printed is committed.
        var pending = PendingOutput(linesPerCommit: linesPerCommit)
        struct OutputLost: Error {}
        func printPending() throws {
            try recorder?.commit()
            unseen?.committed()
            context.terminal.write(bytes: pending.take())
            context.terminal.flush()
            progress.update(lines: tally.lines)
            // Nobody reads the results any more (a closed pipe, a full disk): stop rather than
            // verify the rest unseen. Everything recorded so far is committed; CLI.main reports
            // the failed output and exits 74.
            if context.terminal.outputFailure != nil { throw OutputLost() }
        }
        do {
            // Before waiting for input, the results so far are committed and printed: the write
            // lock is not held, nor a result kept, while a slow producer makes the run wait.
            // When the input ends, what is recorded so far is committed, and the log copied into
            // the file in the background while the last lines are verified and recorded: closing
            // the ledger, which copies whatever is left, then has little to do.
            let inputEnds = {
                try printPending()
                ledger?.checkpointSoon()
            }
            try pipeline.run(&reader, inputWaits: printPending, inputEnds: inputEnds) { items in
                for report in try reports(items, verifier: verifier, recorder: recorder, unseen: &unseen) {
                    if case .rejected(let error) = report.body {
                        hints.note(error)
                    }
                    switch format {
                    case .json, .csv, .html: report.appendJSON(to: &pending.bytes)
                    case .text: report.appendText(to: &pending.bytes)
                    }
                    tally.count(accepted: report.accepted)
                }
                pending.added(lines: items.count)
                if recorder == nil || pending.isDue { try printPending() }
            }
            try printPending()
        } catch is OutputLost {
            outputLost = true
        }
        progress.finish()
        if outputLost { return .success }
        try reader.checkStandardInputRead()
        if format == .text { context.terminal.line(tally.summary) }
        for hint in hints.lines(globals: context.globals) {
            context.terminal.errorLine("hint: \(hint)")
        }
        return tally.rejected > 0 ? .rejected : .success
    }

    /// The pipeline for this run. With a ledger: larger batches, workers below the writer's
    /// priority, and repeats looked up when the ledger has anything to find, else more batches
    /// verified ahead.
    private func makePipeline(_ verifier: Verifier, ledger: Ledger?) throws -> VerificationPipeline {
        var pipeline = VerificationPipeline(verifier: verifier)
        guard let ledger else { return pipeline }
        // The writer records one batch while the workers verify the next; once the ledger
        // outgrows its cache, recording takes longer than verifying and the writer sets the
        // pace, so the workers yield the CPU to it (docs/performance.md).
        pipeline.workerPriority = .background
        // A ledger that held no evidence when the run began can hold only what this run
        // records, and the writer tells a repeat within the run apart itself: looking every
        // token up would only miss.
        // Either way 4096 lines are in flight (a batch of 2048 recorded and one ahead, or one of
        // 1024 and three ahead); with the ledger's page caches and the results waiting for
        // their commit (`PendingOutput`), that keeps a run of any length under 100 MB.
        // With online checks, a token's verdict is today's (a certificate may have been revoked
        // since it was recorded), so no repeat is answered from the ledger.
        if verifier.onlineChecks == nil, try ledger.holdsEvidence() {
            pipeline.batchSize = 2048
            let fingerprint = verifier.fingerprint
            let finish = self.finish
            pipeline.knownTokens = { digests in
                let found = try? ledger.knownTokens(digests, verifierFingerprint: fingerprint, finishing: finish)
                return found ?? Array(repeating: nil, count: digests.count)
            }
        } else {
            // Nothing is looked up, so the workers may verify further ahead, and keep at it
            // while the writer waits for a commit's fdatasync (docs/performance.md).
            pipeline.batchSize = 1024
            pipeline.batchesAhead = 3
        }
        return pipeline
    }

    /// The batch's reports, after recording its verified payloads with `recorder` (nil: a dry
    /// run). Payloads the ledger cannot key become rejections. `unseen` follows the changes that
    /// repeat lookups may not have seen (nil: no repeats are answered from the ledger).
    private func reports(
        _ items: [VerificationPipeline.Item], verifier: Verifier, recorder: BatchRecorder?,
        unseen: inout UnseenChanges?
    ) throws -> [VerifyReport] {
        var bodies: [VerifyReport.Body] = items.map { item in
            switch item.outcome {
            case .known(let known, _): .known(known)
            case .checked(let result): VerifyReport.Body(result)
            }
        }
        if let recorder {
            if let changes = unseen {
                unseen?.recorded(
                    verifyStaleRepeatsAgain(&bodies, of: items, unseen: changes.unseenByNext, verifier: verifier))
            }
            let toRecord = bodies.indices.compactMap { index -> (Int, VerifiedPayload)? in
                guard case .verified(let payload, _) = bodies[index] else { return nil }
                return (index, payload)
            }
            let results = try recorder.record(toRecord.map(\.1), finish: finish)
            for ((index, payload), result) in zip(toRecord, results) {
                switch result {
                case .success(let recorded): bodies[index] = .verified(payload, recording: recorded)
                case .failure(let rejection): bodies[index] = .rejected(rejection)
                }
            }
        }
        return zip(items, bodies).map { VerifyReport(line: $0.line.number, body: $1) }
    }

    /// A batch's repeats were looked up while the batches before it were being recorded, and
    /// before the lines ahead of them in the batch are: the state found may be older than the
    /// one at their line. A repeat of a transaction that `unseen` holds or an earlier line of the
    /// batch may change is verified again here and recorded in its place, so it reports the
    /// state as of its line; the rest are answered as found. Returns the transactions this batch
    /// may change.
    private func verifyStaleRepeatsAgain(
        _ bodies: inout [VerifyReport.Body], of items: [VerificationPipeline.Item], unseen: TouchedTransactions,
        verifier: Verifier
    ) -> TouchedTransactions {
        var touched = TouchedTransactions()
        for index in bodies.indices {
            if case .known(let known) = bodies[index], touched.contains(known) || unseen.contains(known),
                case .known(_, let jws) = items[index].outcome
            {
                bodies[index] = VerifyReport.Body(verifier.verify(jws))
            }
            if case .verified(let payload, _) = bodies[index] { touched.insert(payload) }
        }
        return touched
    }
}
