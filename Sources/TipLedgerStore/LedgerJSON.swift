// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// The JSON shapes of SPEC section 5 for `restore`, `pending`, `report` and a verified payload's
/// result, shared by the command line and the HTTP service so both answer exactly alike. Field
/// names are part of the contract.
public enum LedgerJSON {
    /// What `verify --format json` and the HTTP posting routes say of a verified payload: its
    /// environment, the fields that name it, and what recording it did (`recording`, nil in a
    /// dry run).
    public static func writeVerified(
        _ payload: VerifiedPayload, recording: RecordResult?, to object: inout JSONWriter.ObjectWriter
    ) {
        object.field("environment", payload.environment.rawValue)
        switch payload {
        case .transaction(let transaction):
            object.field("transactionId", transaction.transactionId)
            object.field("productId", transaction.payload.productId)
            object.field("appAccountToken", transaction.payload.appAccountToken?.lowercased())
        case .notification(let notification):
            object.field("notificationType", notification.rawNotificationType)
            object.field("subtype", notification.payload.rawSubtype)
            object.field("notificationUUID", notification.notificationUUID)
            object.field("transactionId", recording?.transactionId ?? notification.transaction?.transactionId)
        case .renewalInfo(let renewal):
            object.field("originalTransactionId", renewal.payload.originalTransactionId)
            object.field("productId", renewal.payload.productId)
        case .appTransaction(let app):
            object.field("appTransactionId", app.payload.appTransactionId)
            object.field("bundleId", app.payload.bundleId)
        }
        writeRecording(recording, to: &object)
    }

    /// The outcome (`verified` when nothing was recorded), and the transaction's state and
    /// whether it is finished, where it has one.
    public static func writeRecording(_ recording: RecordResult?, to object: inout JSONWriter.ObjectWriter) {
        object.field("outcome", recording?.outcome.rawValue ?? "verified")
        if let recording, let state = recording.state {
            object.field("state", state.rawValue)
            object.field("finished", recording.finished)
        }
    }

    /// Whose tips a restore lists.
    public enum RestoreKey: Sendable {
        case account(String)
        case appTransactionId(String)
    }

    /// `{"account":...,"transactions":[...],"totals":[...]}`; by app transaction, `account` is
    /// null and `appTransactionId` follows it, so the contract's fields are always there.
    public static func restore(_ restore: Restore, key: RestoreKey, catalog: StoreKitCatalog?) -> String {
        var writer = JSONWriter()
        writer.object { object in
            switch key {
            case .account(let account): object.field("account", account)
            case .appTransactionId(let id):
                object.field("account", nil as String?)
                object.field("appTransactionId", id)
            }
            object.array("transactions", restore.transactions) { transaction($1, catalog: catalog, to: &$0) }
            object.array("totals", restore.totals) { entry, total in
                entry.field("environment", total.environment.rawValue)
                entry.field("currency", total.currency)
                entry.field("net_milli", total.netMilli)
            }
        }
        return writer.text
    }

    /// `{"transactions":[...]}` for `pending`.
    public static func transactions(_ records: [TransactionRecord], catalog: StoreKitCatalog?) -> String {
        var writer = JSONWriter()
        writer.object { object in
            object.array("transactions", records) { transaction($1, catalog: catalog, to: &$0) }
        }
        return writer.text
    }

    /// The members of one transaction object, in the documented order.
    static func transaction(
        _ record: TransactionRecord, catalog: StoreKitCatalog?, to object: inout JSONWriter.ObjectWriter
    ) {
        object.field("environment", record.environment.rawValue)
        object.field("transactionId", record.transactionId)
        object.field("originalTransactionId", record.originalTransactionId)
        object.field("productId", record.productId)
        if let name = catalog?.product(record.productId)?.displayName { object.field("productName", name) }
        object.field("purchaseDate", record.purchaseDateMilliseconds)
        object.field("quantity", record.quantity)
        object.field("price", record.priceMilli)
        object.field("currency", record.currency)
        object.field("storefront", record.storefront)
        object.field("state", record.state.rawValue)
        object.field("finished", record.finished)
        object.field("revocationDate", record.revocationDateMilliseconds)
        object.field("revocationReason", record.revocationReason)
        object.field("appTransactionId", record.appTransactionId)
        object.field("net_milli", record.netMilli)
    }

    /// `{"rows":[...],"openConsumptionRequests":[...]}`; each row names its group after `grouping`
    /// (no group field when grouping by currency) and, with a commission rate, carries
    /// `estimated_proceeds_milli`.
    public static func report(
        _ report: Report, grouping: ReportGrouping, commission: Double?, catalog: StoreKitCatalog?
    ) -> String {
        let groupField = grouping == .currency ? nil : grouping.rawValue
        var writer = JSONWriter()
        writer.object { object in
            object.array("rows", report.rows) { entry, row in
                entry.field("environment", row.environment.rawValue)
                if let groupField { entry.field(groupField, row.group) }
                if grouping == .product, let name = row.group.flatMap({ catalog?.product($0)?.displayName }) {
                    entry.field("productName", name)
                }
                entry.field("currency", row.currency)
                entry.field("transactions", row.transactions)
                entry.field("units", row.units)
                entry.field("gross_milli", row.grossMilli)
                entry.field("refunded_milli", row.refundedMilli)
                entry.field("revoked_milli", row.revokedMilli)
                entry.field("net_milli", row.netMilli)
                if let commission {
                    entry.field("estimated_proceeds_milli", row.estimatedProceedsMilli(commission: commission))
                }
            }
            // To the eight decimals the rate counts to (see `estimatedProceedsMilli`), so that
            // 33.3% prints 0.333, not the binary fraction's 0.33299999999999996.
            if let commission {
                object.field("commissionRate", ReportRow.rateUnits(commission) / Double(ReportRow.rateScale))
            }
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

extension ReportRow {
    /// A commission rate counts in hundred-millionths (eight decimals).
    static let rateScale: Int64 = 100_000_000

    /// `rate` in hundred-millionths, to the nearest.
    static func rateUnits(_ rate: Double) -> Double {
        (rate * Double(rateScale)).rounded()
    }

    /// Net after Apple's commission at `rate` (0.15 = 15 %), rounded to the nearest minor unit of
    /// the currency (a cent, a yen), halves away from zero. An estimate: Apple's own rounding and
    /// taxes differ.
    ///
    /// Computed in integers, so a half is a half: in binary fractions 0.35 × (1 − 0.3) falls
    /// just short of 0.245 and would round down. The rate counts to eight decimals (finer ones
    /// are rounded; `ReportQuery.commissionRate` refuses a rate that would round to 100 %).
    public func estimatedProceedsMilli(commission rate: Double) -> Int64 {
        let unit = CurrencyUnit.minorUnitMilli(of: currency)
        let scale = Self.rateScale
        let kept = scale - Int64(Self.rateUnits(rate))
        // net × kept may not fit 64 bits; the quotient, at most net / unit, does.
        let divisor = scale * unit
        let (quotient, remainder) = divisor.dividingFullWidth(netMilli.multipliedFullWidth(by: kept))
        let halfOrMore = remainder.magnitude * 2 >= divisor.magnitude
        return (quotient + (halfOrMore ? (remainder < 0 ? -1 : 1) : 0)) * unit
    }
}
