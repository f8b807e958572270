// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A token the ledger already holds as verified evidence, with what re-recording it would say.
public struct KnownToken: Sendable, Equatable {
    public let kind: PayloadKind
    public let environment: AppStoreEnvironment
    /// What recording the token again reports: outcome `duplicate`, the transaction and its state.
    public let result: RecordResult
    public let productId: String?
    public let account: String?
    public let notificationUUID: String?
    public let notificationType: String?
    public let subtype: String?
}

extension Ledger {
    /// The stored token with this SHA-256 (of its exact bytes), when re-verifying and
    /// re-recording it could not differ: stored as evidence by a verifier with the same
    /// `fingerprint` (same roots and policy), verified without the clock, its transaction or
    /// notification recorded, and (when `finishing`) its transaction already finished. Nil when
    /// the token must be verified and recorded as usual. Safe to call from many threads.
    func knownToken(_ digest: [UInt8], verifierFingerprint: [UInt8], finishing: Bool) throws -> KnownToken? {
        try knownTokens([digest], verifierFingerprint: verifierFingerprint, finishing: finishing)[0]
    }

    /// Whether the ledger holds any verified evidence: without it, no token can be known.
    public func holdsEvidence() throws -> Bool {
        try withReader { try $0.queryOne("SELECT EXISTS (SELECT 1 FROM evidence)") { $0.int64(0) == 1 } ?? false }
    }

    /// `knownToken` for many digests at once, in one read transaction on one connection (a
    /// transaction per lookup takes and releases the log's read lock each time). One answer per
    /// digest, in order.
    public func knownTokens(_ digests: [[UInt8]], verifierFingerprint: [UInt8], finishing: Bool) throws
        -> [KnownToken?]
    {
        guard !digests.isEmpty else { return [] }
        return try withReader { database in
            try database.readTransaction {
                try digests.map { digest in
                    try Self.knownToken(
                        digest, verifierFingerprint: verifierFingerprint, finishing: finishing, in: database)
                }
            }
        }
    }

    private static func knownToken(
        _ digest: [UInt8], verifierFingerprint: [UInt8], finishing: Bool, in database: Database
    ) throws -> KnownToken? {
        try database.queryOne(selectKnownToken, digest, verifierFingerprint) { row -> KnownToken? in
            guard let environment = AppStoreEnvironment(rawValue: row.text(1) ?? "") else { return nil }
            let state = row.text(6).flatMap(TransactionState.init(rawValue:))
            let finished = state == nil ? nil : row.int64(7) == 1
            if row.text(0) == "notification" {
                guard row.int64(11) == 1 else { return nil }
                let transactionId = row.text(10) ?? row.text(2)
                return KnownToken(
                    kind: .notification, environment: environment,
                    result: RecordResult(
                        outcome: .duplicate, transactionId: transactionId, state: state, finished: finished),
                    productId: nil, account: nil, notificationUUID: row.text(3), notificationType: row.text(8),
                    subtype: row.text(9))
            }
            guard let state, let finished, !(finishing && !finished) else { return nil }
            return KnownToken(
                kind: .transaction, environment: environment,
                result: RecordResult(
                    outcome: .duplicate, transactionId: row.text(2), state: state, finished: finished),
                productId: row.text(4), account: row.text(5), notificationUUID: nil, notificationType: nil,
                subtype: nil)
        } ?? nil
    }

    /// What `knownToken` reads of the stored token whose digest is `?1`, accepted by a verifier
    /// whose fingerprint is `?2`.
    static let selectKnownToken = """
        SELECT e.kind, e.environment, e.transaction_id, e.notification_uuid, t.product_id, t.account,
            t.state, t.finished_ms IS NOT NULL, n.notification_type, n.subtype, n.transaction_id,
            n.notification_uuid IS NOT NULL
        FROM evidence e
        LEFT JOIN transactions t ON t.environment = e.environment AND t.transaction_id = e.transaction_id
        LEFT JOIN notifications n ON e.kind = 'notification' AND n.notification_uuid = lower(e.notification_uuid)
        WHERE \(EvidenceStore.evidenceByDigest) AND e.verifier_fingerprint = ?2 AND e.clock_free = 1
        """
}
