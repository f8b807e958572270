// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension ReportRendering {
    /// `{"rows":[...],"openConsumptionRequests":[...]}`; each row names its group after the
    /// grouping (no group field when grouping by currency) and, with a commission rate, carries
    /// `estimated_proceeds_milli`.
    public var json: String {
        var writer = JSONWriter()
        writer.object { object in
            object.array("rows", report.rows) { entry, row in
                entry.field("environment", row.environment.rawValue)
                if let groupField { entry.field(groupField, row.group) }
                if let name = productName(row) { entry.field("productName", name) }
                entry.field("currency", row.currency)
                entry.field("transactions", row.transactions)
                entry.field("units", row.units)
                entry.field("gross_milli", row.grossMilli)
                entry.field("refunded_milli", row.refundedMilli)
                entry.field("revoked_milli", row.revokedMilli)
                entry.field("net_milli", row.netMilli)
                if let commission {
                    entry.field("estimated_proceeds_milli", commission.estimatedProceedsMilli(of: row))
                }
            }
            if let commission { object.field("commissionRate", commission.counted) }
            object.array("openConsumptionRequests", report.openConsumptionRequests) { entry, request in
                entry.field("environment", request.environment.rawValue)
                entry.field("transactionId", request.transactionId)
                entry.field("reason", request.reason)
                entry.field("deadline", request.deadlineMilliseconds)
            }
        }
        return writer.text
    }
}
