// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// What `verify` says about one input line, in text or as one JSON object per line (SPEC
/// section 5). A known repeat prints exactly what verifying and recording it again would.
struct VerifyReport {
    enum Body {
        case rejected(VerificationError)
        /// Verified; `recording` is nil in a dry run.
        case verified(VerifiedPayload, recording: RecordResult?)
        case known(KnownToken)

        /// A verdict, not recorded yet.
        init(_ verdict: Result<VerifiedPayload, VerificationError>) {
            switch verdict {
            case .success(let payload): self = .verified(payload, recording: nil)
            case .failure(let error): self = .rejected(error)
            }
        }
    }

    let line: Int
    let body: Body

    /// Whether the line counts as accepted.
    var accepted: Bool {
        switch body {
        case .verified, .known: true
        case .rejected: false
        }
    }

    /// Appends the report as one JSON line to `bytes`.
    func appendJSON(to bytes: inout [UInt8]) {
        // The writer takes the buffer over, so appending never copies it.
        var writer = JSONWriter(appendingTo: bytes)
        bytes = []
        writer.object { object in
            object.field("line", line)
            switch body {
            case .rejected(let error):
                object.field("ok", false)
                object.field("error", error.code.rawValue)
                object.field("appleStatus", error.appleStatus)
                object.field("message", error.message)
            case .verified(let payload, let recording):
                object.field("ok", true)
                object.field("kind", payload.kind.rawValue)
                LedgerJSON.writeVerified(payload, recording: recording, to: &object)
            case .known(let known):
                object.field("ok", true)
                object.field("kind", known.kind.rawValue)
                object.field("environment", known.environment.rawValue)
                if known.kind == .notification {
                    object.field("notificationType", known.notificationType)
                    object.field("subtype", known.subtype)
                    object.field("notificationUUID", known.notificationUUID)
                    object.field("transactionId", known.result.transactionId)
                } else {
                    object.field("transactionId", known.result.transactionId)
                    object.field("productId", known.productId)
                    object.field("appAccountToken", known.account)
                }
                LedgerJSON.writeRecording(known.result, to: &object)
            }
        }
        writer.newline()
        bytes = writer.bytes
    }

    /// Appends the report as one line of text to `bytes`, word by word in place (no string per
    /// word): `verify` prints thousands of these a second.
    func appendText(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "line \(line):".utf8)
        let recording: RecordResult?
        switch body {
        case .rejected(let error):
            bytes.append(words: "rejected", error.code.rawValue, "(\(error.appleStatus)):", error.message)
            bytes.append(UInt8(ascii: "\n"))
            return
        case .verified(let payload, let result):
            recording = result
            bytes.append(words: "ok", payload.kind.rawValue, payload.environment.rawValue)
            switch payload {
            // The kind, said first, names what the id that follows is.
            case .transaction(let transaction):
                bytes.append(words: transaction.transactionId ?? "-")
                if let product = transaction.payload.productId { bytes.append(words: product) }
            case .notification(let notification):
                bytes.append(type: notification.rawNotificationType, subtype: notification.payload.rawSubtype)
                bytes.append(words: notification.notificationUUID)
                if let id = result?.transactionId ?? notification.transaction?.transactionId {
                    bytes.append(words: "transaction", id)
                }
            case .renewalInfo(let renewal):
                bytes.append(words: "original transaction", renewal.payload.originalTransactionId ?? "-")
            case .appTransaction(let app):
                bytes.append(words: app.payload.appTransactionId ?? "-")
            }
        case .known(let known):
            recording = known.result
            bytes.append(words: "ok", known.kind.rawValue, known.environment.rawValue)
            if known.kind == .notification {
                bytes.append(type: known.notificationType ?? "-", subtype: known.subtype)
                bytes.append(words: known.notificationUUID ?? "-")
                if let id = known.result.transactionId { bytes.append(words: "transaction", id) }
            } else {
                bytes.append(words: known.result.transactionId ?? "-")
                if let product = known.productId { bytes.append(words: product) }
            }
        }
        bytes.append(words: recording?.outcome.rawValue ?? "verified")
        if let state = recording?.state { bytes.append(words: "(\(state.rawValue))") }
        bytes.append(UInt8(ascii: "\n"))
    }
}

extension [UInt8] {
    /// Appends each word after a space, escaped (`PrintableText`): words are signed fields,
    /// which may carry anything.
    fileprivate mutating func append(words: String...) {
        for word in words {
            append(UInt8(ascii: " "))
            append(contentsOf: PrintableText.escaped(word).utf8)
        }
    }

    /// Appends a notification's type after a space, and its subtype after a slash when it has one.
    fileprivate mutating func append(type: String, subtype: String?) {
        append(words: type)
        if let subtype {
            append(UInt8(ascii: "/"))
            append(contentsOf: PrintableText.escaped(subtype).utf8)
        }
    }
}
