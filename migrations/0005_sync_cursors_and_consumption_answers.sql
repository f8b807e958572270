-- SPDX-License-Identifier: GPL-3.0-or-later
-- 0005: how far the walks through Apple's histories got, and the answers to consumption requests.

-- One row per walk through a paged App Store Server API endpoint: the app's notification
-- history in an environment (scope ''), or one customer's transaction or refund history (scope:
-- the transaction id it was asked with). A page's records and the cursor after it commit
-- together, so a walk that was stopped resumes after the last page it recorded.
CREATE TABLE sync_cursors (
    environment TEXT NOT NULL,
    walk TEXT NOT NULL CHECK (walk IN ('notification_history', 'transaction_history', 'refund_history')),
    scope TEXT NOT NULL,
    -- 1 while a walk is under way: it resumes after `cursor`, over the same window.
    running INTEGER NOT NULL CHECK (running IN (0, 1)),
    -- The notification history window asked for (sent from, sent before); NULL for the others.
    window_start_ms INTEGER,
    window_end_ms INTEGER,
    only_failures INTEGER NOT NULL CHECK (only_failures IN (0, 1)),
    -- Apple's paginationToken or revision after the last page recorded; NULL before the first.
    cursor TEXT,
    pages INTEGER NOT NULL,
    -- Notification history: every notification sent before this time was swept.
    swept_until_ms INTEGER,
    completed_ms INTEGER,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (environment, walk, scope)
) STRICT, WITHOUT ROWID;

-- The answer sent for a consumption request (Send Consumption Information), at most one that
-- Apple answered. A request is claimed before its answer is sent, so two processes never send
-- one together; a claim whose sender died lapses at `claimed_until_ms`.
CREATE TABLE consumption_answers (
    notification_uuid TEXT PRIMARY KEY REFERENCES consumption_requests (notification_uuid),
    environment TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    -- The JSON body sent.
    body TEXT NOT NULL,
    sent_ms INTEGER NOT NULL,
    claimed_until_ms INTEGER NOT NULL,
    -- Apple's HTTP status (202 accepted, 4xx refused); NULL while being sent, or when no answer
    -- came (then the request may be answered again once the claim lapsed).
    apple_status INTEGER,
    -- Apple's error, or why no answer came.
    error TEXT,
    answered_ms INTEGER
) STRICT, WITHOUT ROWID;
