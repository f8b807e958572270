// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension VerifyReport {
    /// Appends the report as one JSON line to `bytes`.
    public func appendJSON(to bytes: inout [UInt8]) {
        // The writer takes the buffer over, so appending never copies it.
        var writer = JSONWriter(appendingTo: bytes)
        bytes = []
        writer.object { object in
            object.field("line", line)
            switch body {
            case .rejected(let error):
                RejectionJSON.write(error, to: &object)
            case .verified(let payload, let recording):
                VerifiedPayloadJSON.writeAccepted(payload, recording: recording, to: &object)
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
                VerifiedPayloadJSON.writeRecording(known.result, to: &object)
            }
        }
        writer.newline()
        bytes = writer.bytes
    }
}
