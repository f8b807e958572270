-- SPDX-License-Identifier: GPL-3.0-or-later
-- 0002: shorter keys for the indexes looked up by random values.
--
-- Token digests, account tokens and app transaction ids are random, so every row recorded lands
-- on a random page of each of their indexes. Indexed whole (a 32-byte digest, a 36-character
-- UUID), these indexes outgrow any page cache a recording process can afford, and each row then
-- reads and writes one page of each. Indexed by 8 bytes of the value, they take a third of the
-- space. A lookup still compares the whole value: it names the short key and the value, as in
-- `WHERE substr(account, -8) = substr(?1, -8) AND +account = ?1`
-- (the `+` stops SQLite from replacing `account` in the first term by the value, after which
-- the index would no longer match).
--
-- The short keys: the first 8 bytes of a digest; the last 8 characters of an account token (the
-- random part of version 4 and version 7 UUIDs alike) and of an app transaction id (its fastest
-- changing digits).

-- A token is still stored once, by its digest: the writer looks the digest up before inserting,
-- inside its write transaction. The table is rebuilt to drop the UNIQUE constraint, whose index
-- is keyed by the whole digest; rows keep their ids, which other tables reference.
CREATE TABLE evidence_0002 (
    id INTEGER PRIMARY KEY,
    sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
    kind TEXT NOT NULL CHECK (kind IN ('transaction', 'notification')),
    header_id INTEGER NOT NULL REFERENCES jws_headers (id),
    body TEXT NOT NULL,
    environment TEXT NOT NULL,
    bundle_id TEXT,
    signed_date_ms INTEGER,
    transaction_id TEXT,
    notification_uuid TEXT,
    verifier_fingerprint BLOB,
    clock_free INTEGER NOT NULL DEFAULT 0 CHECK (clock_free IN (0, 1)),
    received_ms INTEGER NOT NULL
) STRICT;

INSERT INTO evidence_0002 (id, sha256, kind, header_id, body, environment, bundle_id, signed_date_ms, transaction_id,
    notification_uuid, verifier_fingerprint, clock_free, received_ms)
SELECT id, sha256, kind, header_id, body, environment, bundle_id, signed_date_ms, transaction_id,
    notification_uuid, verifier_fingerprint, clock_free, received_ms
FROM evidence ORDER BY id;

DROP TABLE evidence;
ALTER TABLE evidence_0002 RENAME TO evidence;

CREATE INDEX evidence_by_digest ON evidence (substr(sha256, 1, 8));

DROP INDEX transactions_by_account;
CREATE INDEX transactions_by_account ON transactions (substr(account, -8)) WHERE account IS NOT NULL;

DROP INDEX transactions_by_app_transaction;
CREATE INDEX transactions_by_app_transaction ON transactions (substr(app_transaction_id, -8))
    WHERE app_transaction_id IS NOT NULL;
