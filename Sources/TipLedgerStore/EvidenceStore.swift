// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

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

    /// Stores a verified token once (by its SHA-256, computed here unless `digest` has it), its
    /// header once per distinct header.
    func storeEvidence(
        _ token: String, digest: [UInt8]?, kind: String, environment: AppStoreEnvironment, bundleId: String?,
        signedDate: AppleDate?, transactionId: String?, notificationUUID: String?, context: VerificationContext
    ) throws -> StoredEvidence {
        assert(digest == nil || digest == SHA256.hash(token.utf8), "a token digest that is not the token's")
        let digest = digest ?? SHA256.hash(token.utf8)
        // Stored once. The digest is not a unique key (its index holds 8 bytes of it), so it is
        // looked up first, before the token is split and its body copied, inside the write
        // transaction no other writer shares. (One statement, INSERT ... SELECT ... WHERE NOT
        // EXISTS, costs more: SQLite copies a SELECT from the table it inserts into through a
        // temporary table.)
        if let stored = try storedEvidenceId(digest) {
            try adoptVerdict(digest, context: context)
            return StoredEvidence(id: stored, isNew: false)
        }
        var token = token
        // Split at the first '.' by bytes; the header is compared as bytes with the few known
        // ones, so it becomes a String only when it is new.
        let (headerId, body) = try token.withUTF8 { bytes throws -> (Int64, String) in
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: ".")), bytes.count) else {
                throw StoreError(code: 0, message: "a verified token has no '.'")
            }
            let dot = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            return (
                try self.headerId(UnsafeBufferPointer(rebasing: bytes[..<dot])),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[(dot + 1)...]), as: UTF8.self)
            )
        }
        try database.run(
            """
            INSERT INTO evidence (sha256, kind, header_id, body, environment, bundle_id, signed_date_ms, transaction_id,
                notification_uuid, verifier_fingerprint, clock_free, received_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            digest, kind, headerId, body, environment.rawValue, bundleId, signedDate?.wholeMilliseconds,
            transactionId, notificationUUID, context.verifierFingerprint, !context.usedClock, now)
        return StoredEvidence(id: database.lastInsertedRowID, isNew: true)
    }

    private static func equalBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
        return memcmp(leftBase, rightBase, left.count) == 0
    }

    /// The id of `header` in `jws_headers`, inserting it when new.
    private func headerId(_ header: UnsafeBufferPointer<UInt8>) throws -> Int64 {
        let known = database.headerIds.first { known in
            known.header.withUnsafeBufferPointer { Self.equalBytes($0, header) }
        }
        if let known { return known.id }
        let digest = SHA256.hash(UnsafeRawBufferPointer(header))
        try database.run(
            "INSERT OR IGNORE INTO jws_headers (sha256, header) VALUES (?, ?)", digest,
            String(decoding: header, as: UTF8.self))
        guard
            let id = try database.queryOne(
                "SELECT id FROM jws_headers WHERE sha256 = ?", digest, row: { $0.int64(0) })
        else { throw StoreError(code: 0, message: "a stored header is missing") }
        if database.headerIds.count >= 8 { database.headerIds.removeFirst() }
        database.headerIds.append((Array(header), id))
        return id
    }
}
