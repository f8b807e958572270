// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerPresentation
internal import TipLedgerStore

/// `tipledger reverify`: the offline audit of the ledger: the file's integrity, the ledger's
/// own rules, and every stored token verified again.
///
/// One command rather than a `check` beside it: an audit that runs from cron is whole or it
/// misses something, and every part of it needs what `reverify` needed already (the ledger,
/// and the verifier's settings for the tokens).
struct ReverifyCommand: Command {
    static let name = "reverify"
    static let summary = "audit the ledger: file integrity, its rules, every stored payload"
    static let usage = """
        Usage: tipledger reverify

        Audits the ledger offline, in three steps:
          1. SQLite's integrity check of the whole file. A damaged file ends the audit
             there: restore the ledger from a backup (see the README).
          2. The ledger's rules: every transaction's amounts are the sums of its events'
             changes, and every transaction and notification has its evidence (the signed
             payload it was recorded from).
          3. Every signed transaction and notification kept as evidence verified again,
             each at its own signedDate, against the configured roots, bundle ids and
             environments. Needs no network.
        Run it from cron before each backup: tipledger reverify && tipledger backup PATH

        Text lists one problem per line, then what was checked; JSON is one object:
          {"integrity":[{"table","problem"}],"invariants":[{"kind","environment",
           "transactionId","notificationUUID","problem"}],"checked":N,"failed":N,
           "failures":[{"evidenceId","kind","environment","transactionId",
           "notificationUUID","error","message"}]}
        with only "integrity" when the file is damaged.

        Exit status 1 when a rule is broken or a stored payload fails, 74 when the file is
        damaged.

        """

    let format: GlobalOptions.Format

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        format = try globals.format(allowing: [.text, .json], command: Self.name)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        // The audit checks the evidence as it was signed, offline, whatever `--online-checks`
        // says: a certificate revoked since is a matter for the next payload, not the record.
        let verifier = Verifier(
            trustStore: try context.globals.trustStore(),
            policy: try context.globals.verificationPolicy(command: Self.name), clock: context.clock)
        let ledger = try context.openLedger(.read)
        let problems = try ledger.integrityProblems()
        guard problems.isEmpty else {
            show(AuditRendering(damage: problems), on: context.terminal)
            var tables: [String] = []
            for table in problems.compactMap(\.table) where !tables.contains(table) { tables.append(table) }
            let places =
                tables.isEmpty
                ? "in the file" : "in table\(tables.count == 1 ? "" : "s") \(tables.joined(separator: ", "))"
            throw CLIError(
                .ioError,
                "the ledger \(context.globals.databasePath) is damaged: SQLite's integrity check found problems \(places)",
                hint: "restore it from a copy made with tipledger backup that passes this audit, then verify the "
                    + "evidence the damaged file still yields into it again (see the README)")
        }
        let invariants = try ledger.brokenInvariants()
        var progress = Progress(terminal: context.terminal, clock: context.clock)
        var checked = 0
        let failures = try ledger.reverify(with: verifier) { done, total in
            checked = done
            progress.update(lines: done, of: total)
        }
        progress.finish()
        show(
            AuditRendering(problems: problems, invariants: invariants, checked: checked, failures: failures),
            on: context.terminal)
        if !invariants.breaches.isEmpty {
            context.terminal.errorLine(
                "hint: a broken rule means the ledger was changed other than by tipledger; "
                    + "compare it with a backup (see the README)")
        }
        var hints = RejectionHints()
        for failure in failures { hints.note(failure.error) }
        for hint in hints.lines(globals: context.globals) {
            context.terminal.errorLine("hint: \(hint)")
        }
        return failures.isEmpty && invariants.breaches.isEmpty ? .success : .rejected
    }

    /// Prints what the audit found: one JSON object, or lines of text.
    private func show(_ rendering: AuditRendering, on terminal: Terminal) {
        switch format {
        case .json, .csv, .html: terminal.line(rendering.json)
        case .text: rendering.textLines.forEach(terminal.line)
        }
    }
}
