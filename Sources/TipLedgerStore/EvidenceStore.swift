// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

/// The verified tokens the ledger keeps as evidence (docs/ledger.md): each token once, by its
/// SHA-256, and its header once per distinct header in `jws_headers`. Works inside the open
/// write transaction.
struct EvidenceStore {
    let database: Database
    /// The time of recording, milliseconds since 1970.
    let now: Int64

    /// The result of storing a token: its row's id, and whether this stored it.
    struct StoredEvidence {
        let id: Int64
        let isNew: Bool
    }

    /// The id of the stored token whose SHA-256 is `sha256`, or nil.
    func storedEvidenceId(_ sha256: [UInt8]) throws -> Int64? {
        try database.queryOne(Self.selectEvidenceId, sha256) { $0.int64(0) }
    }

    /// The condition that finds the evidence whose digest is `?1` through its index, which
    /// holds the digest's first 8 bytes (migration 0002). The `+` keeps SQLite from putting the
    /// bound value in place of the column in `substr(sha256, 1, 8)` (constant propagation),
    /// after which the index would no longer match.
    static let evidenceByDigest = "substr(sha256, 1, 8) = substr(?1, 1, 8) AND +sha256 = ?1"

    // Built once, as are all statements run per item: the statement cache compares SQL text,
    // and a string built per call costs an allocation and a full comparison.
    static let selectEvidenceId = "SELECT id FROM evidence WHERE \(evidenceByDigest)"

    /// Lets the stored token whose SHA-256 is `digest`, verified again now, stand for this
    /// verdict (`context`) when it was stored under another (other roots or policy, or an
    /// earlier version of the checks) and this one used no clock: its later repeats are then
    /// answered from the ledger (`Ledger.knownTokens`) rather than verified every time.
    func adoptVerdict(_ digest: [UInt8], context: VerificationContext) throws {
        guard !context.usedClock else { return }
        try database.run(Self.updateVerdict, digest, context.verifierFingerprint)
    }

    static let updateVerdict = """
        UPDATE evidence SET verifier_fingerprint = ?2, clock_free = 1
        WHERE \(evidenceByDigest) AND (verifier_fingerprint IS NOT ?2 OR clock_free = 0)
        """

    /// Stores a verified token once (by the SHA-256 the verifier worked out), its header once
    /// per distinct header.
    func storeEvidence(
        _ token: TokenEvidence, kind: String, environment: AppStoreEnvironment, bundleId: String?,
        signedDate: AppleDate?, transactionId: String?, notificationUUID: String?, context: VerificationContext
    ) throws -> StoredEvidence {
        assert(token.digest == SHA256.hash(token.token.utf8), "a token digest that is not the token's")
        // Stored once. The digest is not a unique key (its index holds 8 bytes of it), so it is
        // looked up first, before the token's body is copied, inside the write transaction no
        // other writer shares. (One statement, INSERT ... SELECT ... WHERE NOT EXISTS, costs
        // more: SQLite copies a SELECT from the table it inserts into through a temporary table.)
        if let stored = try storedEvidenceId(token.digest) {
            try adoptVerdict(token.digest, context: context)
            return StoredEvidence(id: stored, isNew: false)
        }
        try database.run(
            """
            INSERT INTO evidence (sha256, kind, header_id, body, environment, bundle_id, signed_date_ms, transaction_id,
                notification_uuid, verifier_fingerprint, clock_free, received_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            token.digest, kind, try headerId(of: token), String(token.body), environment.rawValue, bundleId,
            signedDate?.wholeMilliseconds, transactionId, notificationUUID, context.verifierFingerprint,
            !context.usedClock, now)
        return StoredEvidence(id: database.lastInsertedRowID, isNew: true)
    }

    /// The id of `token`'s header in `jws_headers`, inserting it when new; remembered by the
    /// header's digest for the few signing chains in use (`Database.headerIds`).
    private func headerId(of token: TokenEvidence) throws -> Int64 {
        if let known = database.headerIds.first(where: { $0.digest == token.headerDigest }) { return known.id }
        try database.run(
            "INSERT OR IGNORE INTO jws_headers (sha256, header) VALUES (?, ?)", token.headerDigest,
            String(token.header))
        guard
            let id = try database.queryOne(
                "SELECT id FROM jws_headers WHERE sha256 = ?", token.headerDigest, row: { $0.int64(0) })
        else { throw StoreError.brokenInvariant("a stored header is missing") }
        if database.headerIds.count >= 8 { database.headerIds.removeFirst() }
        database.headerIds.append((token.headerDigest, id))
        return id
    }
}
