// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

/// What `verify --format json` and the HTTP posting routes say of a verified payload
/// (docs/cli.md, docs/http.md), written by one function so that both answer exactly alike.
/// Field names are part of the contract.
public enum VerifiedPayloadJSON {
    /// What `verify --format json` and the HTTP posting routes say of a verified payload: its
    /// environment, the fields that name it, and what recording it did (`recording`, nil in a
    /// dry run).
    public static func write(
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

    /// What the command-line outputs say of an accepted payload (`verify`, `lookup`): `ok`, its
    /// kind, then `write`'s fields.
    static func writeAccepted(
        _ payload: VerifiedPayload, recording: RecordResult?, to object: inout JSONWriter.ObjectWriter
    ) {
        object.field("ok", true)
        object.field("kind", payload.kind.rawValue)
        write(payload, recording: recording, to: &object)
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
}
