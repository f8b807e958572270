// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension AuditRendering {
    /// `{"integrity":[...],"invariants":[...],"checked":N,"failed":N,"failures":[...]}`, or only
    /// `integrity` for a damaged file.
    public var json: String {
        var writer = JSONWriter()
        writer.object { object in
            object.array("integrity", problems) { object, problem in
                object.field("table", problem.table)
                object.field("problem", problem.message)
            }
            guard let findings else { return }
            object.array("invariants", findings.invariants.breaches) { object, breach in
                object.field("kind", breach.kind)
                object.field("environment", breach.environment)
                object.field("transactionId", breach.transactionId)
                object.field("notificationUUID", breach.notificationUUID)
                object.field("problem", breach.problem)
            }
            object.field("checked", findings.checked)
            object.field("failed", findings.failures.count)
            object.array("failures", findings.failures) { object, failure in
                object.field("evidenceId", failure.evidenceId)
                object.field("kind", failure.kind)
                object.field("environment", failure.environment)
                object.field("transactionId", failure.transactionId)
                object.field("notificationUUID", failure.notificationUUID)
                object.field("error", failure.error.code.rawValue)
                object.field("message", failure.error.message)
            }
        }
        return writer.text
    }
}
