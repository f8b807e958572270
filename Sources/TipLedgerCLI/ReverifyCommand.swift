// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// `tipledger reverify`: re-checks every stored token offline.
struct ReverifyCommand: Command {
    static let name = "reverify"
    static let summary = "re-verify every stored signed payload (an offline audit)"
    static let usage = """
        Usage: tipledger reverify

        Verifies again every signed transaction and notification the ledger keeps as
        evidence, each at its own signedDate, against the configured roots, bundle ids and
        environments, and lists any that no longer verify. Needs no network.

        Text lists one failure per line, then a count; JSON is one object:
          {"checked":N,"failed":N,"failures":[{"evidenceId","kind","environment",
           "transactionId","notificationUUID","error","message"}]}

        Exit status 1 when any stored payload fails.

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
            for failure in failures {
                // A notification by its UUID; a transaction (also one a notification carried) by its id.
                var subject = failure.transactionId ?? "(evidence \(failure.evidenceId))"
                if failure.kind == "notification", let uuid = failure.notificationUUID {
                    subject = uuid + (failure.transactionId.map { " about transaction \($0)" } ?? "")
                }
                // The environment first: one transaction id may be in several.
                context.terminal.line(
                    "\(failure.environment) \(failure.kind) \(subject): \(failure.error.code.rawValue): \(failure.error.message)"
                )
            }
            let payloads = checked == 1 ? "stored payload" : "stored payloads"
            context.terminal.line("\(checked) \(payloads) checked, \(failures.count) failed")
        }
        var hints = RejectionHints()
        for failure in failures { hints.note(failure.error) }
        for hint in hints.lines(globals: context.globals) {
            context.terminal.errorLine("hint: \(hint)")
        }
        return failures.isEmpty ? .success : .rejected
    }
}
