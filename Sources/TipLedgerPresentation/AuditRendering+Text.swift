// SPDX-License-Identifier: GPL-3.0-or-later

extension AuditRendering {
    /// One line per problem found, then, for a sound file, what each step checked.
    public var textLines: [String] {
        guard let findings else {
            return problems.map { problem in
                "damaged: " + (problem.table.map { "table \($0)" } ?? "the file") + ": \(problem.message)"
            }
        }
        var lines: [String] = []
        for breach in findings.invariants.breaches {
            let subject = Self.subject(
                kind: breach.kind, transactionId: breach.transactionId, notificationUUID: breach.notificationUUID)
            lines.append("\(breach.environment) \(breach.kind) \(subject ?? "?"): \(breach.problem)")
        }
        for failure in findings.failures {
            let subject =
                Self.subject(
                    kind: failure.kind, transactionId: failure.transactionId,
                    notificationUUID: failure.notificationUUID) ?? "(evidence \(failure.evidenceId))"
            // The environment first: one transaction id may be in several.
            lines.append(
                "\(failure.environment) \(failure.kind) \(subject): \(failure.error.code.rawValue): \(failure.error.message)"
            )
        }
        lines.append("integrity check: ok")
        let invariants = findings.invariants
        let transactions = invariants.transactions == 1 ? "transaction" : "transactions"
        let notifications = invariants.notifications == 1 ? "notification" : "notifications"
        lines.append(
            "\(invariants.transactions) \(transactions) and \(invariants.notifications) \(notifications) "
                + "checked against the ledger's rules, \(invariants.breaches.count) broken")
        let payloads = findings.checked == 1 ? "stored payload" : "stored payloads"
        lines.append("\(findings.checked) \(payloads) checked, \(findings.failures.count) failed")
        return lines
    }
}
