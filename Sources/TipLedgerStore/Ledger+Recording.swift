// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
public import TipLedgerCore

extension Ledger {
    static let noTransactionId = VerificationError(
        .invalidPayload, "the transaction has no transactionId, so it cannot be recorded")

    /// Whether `text` is an account as the ledger keeps it, an `appAccountToken`: a UUID, in
    /// any letter case, by the rule the verifier reads the signed field with.
    /// `restore --account` and `GET /v1/accounts/{uuid}/transactions` take one.
    public static func isAccountToken(_ text: String) -> Bool {
        PayloadReader.isUUID(text)
    }

    /// Whether `id` can key a transaction: 1 to 64 printable ASCII characters without spaces.
    /// The App Store's are digits; `finish` and `restore --app-transaction-id` take the same.
    public static func isUsableTransactionId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }

    /// Why a verified payload cannot be recorded, as a rejection of the input, or nil when it can.
    /// Apple's model lets `transactionId` be absent (or any string), but the ledger keys
    /// transactions on it, and `finish` must be able to name it; and
    /// it lets `price`, `quantity` and `revocationPercentage` be any integers, but the ledger adds
    /// them up. Recording checks it first (`RecordWriter.record`); callers need not.
    static func unrecordableReason(_ payload: VerifiedPayload) -> VerificationError? {
        switch payload {
        case .transaction(let transaction):
            guard let id = transaction.transactionId else { return noTransactionId }
            return keyReason(id) ?? amountReason(transaction.payload) ?? textReason(transaction.payload)
        case .notification(let notification):
            let payload = notification.payload
            let texts = [
                ("notificationType", payload.rawNotificationType), ("subtype", payload.rawSubtype),
                ("data.consumptionRequestReason", payload.data?.rawConsumptionRequestReason),
            ]
            if let reason = textReason(texts) { return reason }
            guard let transaction = notification.transaction else { return nil }
            if notification.rawNotificationType == NotificationType.refund.rawValue,
                transaction.payload.revocationDate == nil
            {
                // Nothing to apply as a refund, and a transaction never seen would be recorded
                // as a tip that counts.
                return VerificationError(
                    .invalidPayload, "data.signedTransactionInfo: a REFUND's transaction has no revocationDate")
            }
            // Keyed as a transaction the app submits is: without an id, its refund or revocation
            // would be acknowledged and lost.
            let reason =
                (transaction.transactionId.map(keyReason) ?? noTransactionId) ?? amountReason(transaction.payload)
                ?? textReason(transaction.payload)
            return reason?.within("data.signedTransactionInfo")
        case .renewalInfo, .appTransaction:
            return nil
        }
    }

    /// The largest price the ledger records, in milliunits: 10^9 of the currency, thousands of
    /// times the App Store's highest price point in any currency, yet millions of such prices
    /// still add up within the 64-bit integers SQLite sums in.
    static let maximumPriceMilli: Int64 = 1_000_000_000_000

    /// The longest text the ledger keeps from a payload's field (a product id, a storefront, a
    /// notification type, ...), in UTF-8 bytes. Apple's longest such values are bundle ids of at
    /// most 155 characters, and product ids are shorter, so no real payload comes near it; it
    /// keeps a signed 60 KB product id out of every report and restore.
    public static let maximumTextBytes = 256

    /// Why a transaction's texts cannot be recorded: one the ledger keeps is too long. (Its
    /// `transactionId` has its own rule; its `appAccountToken` and `currency` have a shape.)
    private static func textReason(_ payload: JWSTransactionDecodedPayload) -> VerificationError? {
        textReason([
            ("productId", payload.productId), ("bundleId", payload.bundleId),
            ("originalTransactionId", payload.originalTransactionId), ("appTransactionId", payload.appTransactionId),
            ("type", payload.rawType), ("storefront", payload.storefront), ("storefrontId", payload.storefrontId),
            ("inAppOwnershipType", payload.rawInAppOwnershipType), ("revocationType", payload.rawRevocationType),
        ])
    }

    /// Why one of `texts` (field names and values) cannot be recorded, or nil.
    private static func textReason(_ texts: [(field: String, value: String?)]) -> VerificationError? {
        for (field, value) in texts {
            guard let bytes = value?.utf8.count, bytes > maximumTextBytes else { continue }
            return VerificationError(
                .invalidPayload,
                "the \(field) is \(bytes) bytes, over the \(maximumTextBytes) the ledger keeps, "
                    + "so it cannot be recorded")
        }
        return nil
    }

    private static func keyReason(_ transactionId: String) -> VerificationError? {
        guard !isUsableTransactionId(transactionId) else { return nil }
        return VerificationError(
            .invalidPayload,
            "the transactionId is not 1 to 64 printable characters without spaces, so it cannot key a transaction")
    }

    private static func amountReason(_ payload: JWSTransactionDecodedPayload) -> VerificationError? {
        if let price = payload.price, !(0...maximumPriceMilli).contains(price) {
            return VerificationError(
                .invalidPayload,
                "the price \(price) is outside 0...\(maximumPriceMilli) milliunits, so it cannot be recorded")
        }
        if let quantity = payload.quantity, quantity < 1 {
            return VerificationError(
                .invalidPayload, "the quantity \(quantity) is not positive, so it cannot be recorded")
        }
        // A prorated refund returns this share of the price: more than all of it, or less
        // than none, would make the refunded amount exceed the gross or add to it.
        if let percentage = payload.revocationPercentage, !(0...100_000).contains(percentage) {
            return VerificationError(
                .invalidPayload,
                "the revocationPercentage \(percentage) is outside 0...100000 (milliunits of a percent), "
                    + "so it cannot be recorded")
        }
        return nil
    }

    /// Records a batch of verified payloads in one write transaction, committed before this
    /// returns, through the path `BatchRecorder` takes too (`RecordWriter.recordEach`). Returns
    /// one result per item, in order: an item the ledger rejects fails alone, with its
    /// `VerificationError`, and writes nothing; the items around it are recorded. Several
    /// callers' items may share a batch, as each result is the item's own.
    ///
    /// Transactions are finished (delivered) when `finish` is true. Throws a `StoreError` when
    /// the batch as a whole could not be written (database busy past the timeout, disk full, an
    /// item failing otherwise than by its rejection); then nothing of it was written.
    public func record(_ items: [VerifiedPayload], finish: Bool) throws -> [Result<RecordResult, VerificationError>] {
        guard !items.isEmpty else { return [] }
        let now = clock.now().wholeMilliseconds
        return try write { database in
            try database.writeTransaction {
                try RecordWriter(database: database, now: now).recordEach(items, finish: finish)
            }
        }
    }

    /// Records one verified payload in its own transaction. Throws the payload's
    /// `VerificationError` when the ledger rejects it, a `StoreError` when the write failed.
    func record(_ item: VerifiedPayload, finish: Bool) throws -> RecordResult {
        try record([item], finish: finish)[0].get()
    }
}
