// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
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
        let verifier = Verifier(
            trustStore: try context.globals.trustStore(),
            policy: try context.globals.verificationPolicy(command: Self.name), clock: context.clock)
        let ledger = try context.openLedger(.read)
        let problems = try ledger.integrityProblems()
        guard problems.isEmpty else {
            report(damage: problems, on: context.terminal)
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
        switch format {
        case .json, .csv:
            var writer = JSONWriter()
            writer.object { object in
                Self.write(integrity: problems, to: &object)
                object.array("invariants", invariants.breaches) { object, breach in
                    object.field("kind", breach.kind)
                    object.field("environment", breach.environment)
                    object.field("transactionId", breach.transactionId)
                    object.field("notificationUUID", breach.notificationUUID)
                    object.field("problem", breach.problem)
                }
                object.field("checked", checked)
                object.field("failed", failures.count)
                object.array("failures", failures) { object, failure in
                    object.field("evidenceId", failure.evidenceId)
                    object.field("kind", failure.kind)
                    object.field("environment", failure.environment)
                    object.field("transactionId", failure.transactionId)
                    object.field("notificationUUID", failure.notificationUUID)
                    object.field("error", failure.error.code.rawValue)
                    object.field("message", failure.error.message)
                }
            }
            context.terminal.line(writer.text)
        case .text:
            for breach in invariants.breaches {
                let subject = Self.subject(
                    kind: breach.kind, transactionId: breach.transactionId, notificationUUID: breach.notificationUUID)
                context.terminal.line("\(breach.environment) \(breach.kind) \(subject ?? "?"): \(breach.problem)")
            }
            for failure in failures {
                let subject =
                    Self.subject(
                        kind: failure.kind, transactionId: failure.transactionId,
                        notificationUUID: failure.notificationUUID) ?? "(evidence \(failure.evidenceId))"
                // The environment first: one transaction id may be in several.
                context.terminal.line(
                    "\(failure.environment) \(failure.kind) \(subject): \(failure.error.code.rawValue): \(failure.error.message)"
                )
            }
            context.terminal.line("integrity check: ok")
            let transactions = invariants.transactions == 1 ? "transaction" : "transactions"
            let notifications = invariants.notifications == 1 ? "notification" : "notifications"
            context.terminal.line(
                "\(invariants.transactions) \(transactions) and \(invariants.notifications) \(notifications) "
                    + "checked against the ledger's rules, \(invariants.breaches.count) broken")
            let payloads = checked == 1 ? "stored payload" : "stored payloads"
            context.terminal.line("\(checked) \(payloads) checked, \(failures.count) failed")
        }
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

    /// A notification by its UUID; a transaction (also one a notification carried) by its id.
    private static func subject(kind: String, transactionId: String?, notificationUUID: String?) -> String? {
        guard kind == "notification", let uuid = notificationUUID else { return transactionId }
        return uuid + (transactionId.map { " about transaction \($0)" } ?? "")
    }

    /// Lists what SQLite's integrity check found: one line each in text, one object in JSON.
    private func report(damage problems: [IntegrityProblem], on terminal: Terminal) {
        switch format {
        case .json, .csv:
            var writer = JSONWriter()
            writer.object { Self.write(integrity: problems, to: &$0) }
            terminal.line(writer.text)
        case .text:
            for problem in problems {
                terminal.line(
                    "damaged: " + (problem.table.map { "table \($0)" } ?? "the file") + ": \(problem.message)")
            }
        }
    }

    /// The `integrity` member: what SQLite's integrity check found, empty for a sound file.
    private static func write(integrity problems: [IntegrityProblem], to object: inout JSONWriter.ObjectWriter) {
        object.array("integrity", problems) { object, problem in
            object.field("table", problem.table)
            object.field("problem", problem.message)
        }
    }
}
