// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerStore

/// What `reverify`'s audit found (docs/cli.md), as it prints it: in JSON or in text, one file
/// per format. A damaged file ends the audit at its first step: then only the integrity
/// check's problems are shown.
public struct AuditRendering {
    /// What SQLite's integrity check found; empty for a sound file.
    let problems: [IntegrityProblem]
    /// The later steps' findings; nil when the file is damaged.
    let findings: Findings?

    /// What the audit's later steps found in a sound file.
    struct Findings {
        let invariants: InvariantCheck
        /// Stored payloads verified again.
        let checked: Int
        let failures: [ReverifyFailure]
    }

    /// The audit of a damaged file: the integrity check's problems.
    public init(damage problems: [IntegrityProblem]) {
        self.problems = problems
        self.findings = nil
    }

    /// The whole audit of a sound file.
    public init(
        problems: [IntegrityProblem], invariants: InvariantCheck, checked: Int, failures: [ReverifyFailure]
    ) {
        self.problems = problems
        self.findings = Findings(invariants: invariants, checked: checked, failures: failures)
    }

    /// A notification by its UUID; a transaction (also one a notification carried) by its id.
    static func subject(kind: String, transactionId: String?, notificationUUID: String?) -> String? {
        guard kind == "notification", let uuid = notificationUUID else { return transactionId }
        return uuid + (transactionId.map { " about transaction \($0)" } ?? "")
    }
}
