// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

extension VerifyReport {
    /// Appends the report as one line of text to `bytes`, word by word in place (no string per
    /// word): `verify` prints thousands of these a second.
    public func appendText(to bytes: inout [UInt8]) {
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
