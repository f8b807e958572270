// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// What `verify` says about one input line, in text or as one JSON object per line (SPEC
/// section 5).
struct VerifyReport {
    let line: Int
    let result: Result<VerifiedPayload, VerificationError>
    /// What the ledger did with a verified line; nil in a dry run.
    let recording: RecordResult?
    /// Set when the line verified but could not be written to the ledger.
    let ledgerError: StoreError?

    init(line: Int, result: Result<VerifiedPayload, VerificationError>, recording: RecordResult?) {
        self.line = line
        self.result = result
        self.recording = recording
        self.ledgerError = nil
    }

    init(line: Int, ledgerError: StoreError) {
        self.line = line
        self.result = .failure(VerificationError(.invalidPayload, "not recorded"))
        self.recording = nil
        self.ledgerError = ledgerError
    }

    var json: [UInt8] {
        var writer = JSONWriter()
        writer.object { object in
            object.field("line", line)
            if let ledgerError {
                object.field("ok", false)
                object.field("error", "ledger_error")
                object.field("message", "verified but not recorded: \(ledgerError.message)")
                return
            }
            switch result {
            case .failure(let error):
                object.field("ok", false)
                object.field("error", error.code.rawValue)
                object.field("appleStatus", error.appleStatus)
                object.field("message", error.message)
            case .success(let payload):
                object.field("ok", true)
                object.field("kind", payload.kind.rawValue)
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
                object.field("outcome", recording?.outcome.rawValue ?? "verified")
                if let recording, let state = recording.state {
                    object.field("state", state.rawValue)
                    object.field("finished", recording.finished)
                }
            }
        }
        var bytes = writer.bytes
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    var text: String {
        if let ledgerError { return "line \(line): verified but not recorded: \(ledgerError.message)\n" }
        switch result {
        case .failure(let error):
            return "line \(line): rejected \(error.code.rawValue) (\(error.appleStatus)): \(error.message)\n"
        case .success(let payload):
            var words = ["line \(line): ok", payload.kind.rawValue, payload.environment.rawValue]
            switch payload {
            case .transaction(let transaction):
                words.append("transaction \(transaction.transactionId ?? "-")")
                if let product = transaction.payload.productId { words.append(product) }
            case .notification(let notification):
                var type = notification.rawNotificationType
                if let subtype = notification.payload.rawSubtype { type += "/\(subtype)" }
                words.append(type)
                words.append(notification.notificationUUID)
                if let id = recording?.transactionId ?? notification.transaction?.transactionId {
                    words.append("transaction \(id)")
                }
            case .renewalInfo(let renewal):
                words.append("original transaction \(renewal.payload.originalTransactionId ?? "-")")
            case .appTransaction(let app):
                words.append("app transaction \(app.payload.appTransactionId ?? "-")")
            }
            words.append(recording?.outcome.rawValue ?? "verified")
            if let state = recording?.state { words.append("(\(state.rawValue))") }
            return words.joined(separator: " ") + "\n"
        }
    }
}
