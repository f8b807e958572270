-- SPDX-License-Identifier: GPL-3.0-or-later
-- 0001: the tip ledger.
-- Times are milliseconds since 1970 (*_ms); money is integer milliunits of its currency
-- (*_milli, 9990 = 9.99); environments are Apple's names (Production, Sandbox, Xcode, ...).

-- Protected headers of stored tokens, kept once: every token from one signing chain has the
-- same ~3 KB header (its x5c certificates).
CREATE TABLE jws_headers (
    id INTEGER PRIMARY KEY,
    sha256 BLOB NOT NULL UNIQUE,
    header TEXT NOT NULL
) STRICT;

-- Every verified signed payload, exactly as received: token = header "." body.
CREATE TABLE evidence (
    id INTEGER PRIMARY KEY,
    sha256 BLOB NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('transaction', 'notification')),
    header_id INTEGER NOT NULL REFERENCES jws_headers (id),
    body TEXT NOT NULL,
    environment TEXT NOT NULL,
    bundle_id TEXT,
    signed_date_ms INTEGER,
    transaction_id TEXT,
    notification_uuid TEXT,
    -- Verifier.fingerprint (trusted roots and policy) of the verifier that accepted the token,
    -- and whether that verdict used no clock: then the same verifier would give it again, and
    -- an exact repeat can be answered without redoing the cryptography.
    verifier_fingerprint BLOB,
    clock_free INTEGER NOT NULL DEFAULT 0 CHECK (clock_free IN (0, 1)),
    received_ms INTEGER NOT NULL
) STRICT;

-- One row per (environment, transactionId): the state the newest signed transaction info
-- (by signedDate) gives, and whether the app finished (delivered) it.
CREATE TABLE transactions (
    id INTEGER PRIMARY KEY,
    environment TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    original_transaction_id TEXT,
    app_transaction_id TEXT,
    account TEXT,
    bundle_id TEXT NOT NULL,
    product_id TEXT NOT NULL,
    product_type TEXT,
    quantity INTEGER NOT NULL,
    -- The whole purchase's price (already times quantity); NULL when the payload had none.
    price_milli INTEGER,
    currency TEXT,
    storefront TEXT,
    storefront_id TEXT,
    ownership TEXT,
    purchase_date_ms INTEGER,
    signed_date_ms INTEGER NOT NULL,
    revocation_date_ms INTEGER,
    revocation_reason INTEGER,
    revocation_type TEXT,
    -- Share refunded by a prorated refund, in milliunits of a whole (50000 = 50 %).
    revocation_percentage INTEGER,
    -- Family Sharing access revoked (REVOKE): the purchase stops counting as the account's.
    revoked INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    finished_ms INTEGER,
    evidence_id INTEGER NOT NULL REFERENCES evidence (id),
    recorded_ms INTEGER NOT NULL,
    state TEXT GENERATED ALWAYS AS (
        CASE
            WHEN revoked = 1 THEN 'revoked'
            WHEN revocation_date_ms IS NOT NULL THEN 'refunded'
            WHEN finished_ms IS NOT NULL THEN 'finished'
            ELSE 'pending'
        END
    ) VIRTUAL,
    gross_milli INTEGER GENERATED ALWAYS AS (coalesce(price_milli, 0)) VIRTUAL,
    -- A prorated refund returns price × percentage / 100000, rounded half up.
    refunded_milli INTEGER GENERATED ALWAYS AS (
        CASE
            WHEN revoked = 1 OR revocation_date_ms IS NULL THEN 0
            WHEN revocation_type = 'REFUND_PRORATED' AND revocation_percentage IS NOT NULL
                THEN (coalesce(price_milli, 0) * revocation_percentage + 50000) / 100000
            ELSE coalesce(price_milli, 0)
        END
    ) VIRTUAL,
    revoked_milli INTEGER GENERATED ALWAYS AS (CASE WHEN revoked = 1 THEN coalesce(price_milli, 0) ELSE 0 END) VIRTUAL,
    UNIQUE (environment, transaction_id)
) STRICT;

CREATE INDEX transactions_by_account ON transactions (account) WHERE account IS NOT NULL;
CREATE INDEX transactions_by_app_transaction ON transactions (app_transaction_id)
    WHERE app_transaction_id IS NOT NULL;
CREATE INDEX transactions_by_purchase_date ON transactions (purchase_date_ms);
CREATE INDEX transactions_unfinished ON transactions (environment, transaction_id) WHERE finished_ms IS NULL;

-- Every notification applied, keyed by its UUID, with what applying it did.
CREATE TABLE notifications (
    notification_uuid TEXT PRIMARY KEY,
    environment TEXT NOT NULL,
    notification_type TEXT NOT NULL,
    subtype TEXT,
    signed_date_ms INTEGER,
    transaction_id TEXT,
    evidence_id INTEGER NOT NULL REFERENCES evidence (id),
    effect TEXT NOT NULL,
    received_ms INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- CONSUMPTION_REQUEST notifications: Apple waits 12 hours for consumption information.
CREATE TABLE consumption_requests (
    notification_uuid TEXT PRIMARY KEY REFERENCES notifications (notification_uuid),
    environment TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    reason TEXT,
    requested_ms INTEGER NOT NULL,
    deadline_ms INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX consumption_requests_by_deadline ON consumption_requests (deadline_ms);

-- The append-only history. Each event carries the change it made to the transaction's
-- amounts, so every total can be recomputed as a sum over events.
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    environment TEXT NOT NULL,
    transaction_id TEXT,
    kind TEXT NOT NULL,
    -- 'client' (a submitted transaction), 'finish' (the finish command) or a notification UUID.
    source TEXT NOT NULL,
    currency TEXT,
    gross_delta_milli INTEGER NOT NULL DEFAULT 0,
    refunded_delta_milli INTEGER NOT NULL DEFAULT 0,
    revoked_delta_milli INTEGER NOT NULL DEFAULT 0,
    detail TEXT
) STRICT;

CREATE TRIGGER events_are_not_updated BEFORE UPDATE ON events
BEGIN
    SELECT raise(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_are_not_deleted BEFORE DELETE ON events
BEGIN
    SELECT raise(ABORT, 'events are append-only');
END;
