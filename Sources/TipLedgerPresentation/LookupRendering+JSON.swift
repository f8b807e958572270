// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension LookupRendering {
    /// One JSON object per payload, in Apple's order: `verify`'s fields and the transaction's
    /// price, currency, purchase and revocation dates.
    public var jsonLines: [String] {
        outcomes.map { outcome in
            var writer = JSONWriter()
            writer.object { object in
                switch outcome {
                case .rejected(let error):
                    RejectionJSON.write(error, to: &object)
                case .verified(let payload, let recording):
                    VerifiedPayloadJSON.writeAccepted(payload, recording: recording, to: &object)
                    if let fields = payload.transaction?.payload {
                        object.field("purchaseDate", fields.purchaseDate?.description)
                        object.field("price", fields.price)
                        object.field("currency", fields.currency)
                        object.field("revocationDate", fields.revocationDate?.description)
                    }
                }
            }
            return writer.text
        }
    }
}
