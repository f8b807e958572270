-- SPDX-License-Identifier: GPL-3.0-or-later
-- 0003: the account and app transaction indexes, kept in parts of 65,536 transactions.
--
-- Account tokens and app transaction ids are random, so each transaction recorded lands on a
-- random page of these two indexes. Once they outgrow the writer's page cache (at about 400,000
-- transactions), every commit writes almost every page of both again, and recording slows down as
-- the ledger grows. Keyed first by the part a transaction's id falls in (`id >> 16`), new entries
-- go to the last part only, which stays small, so recording costs the same however large the
-- ledger. A lookup searches each part that holds a transaction, one index search per part:
-- `(id >> 16) IN (the parts) AND substr(account, -8) = substr(?1, -8) AND +account = ?1`.

DROP INDEX transactions_by_account;
CREATE INDEX transactions_by_account ON transactions (id >> 16, substr(account, -8)) WHERE account IS NOT NULL;

DROP INDEX transactions_by_app_transaction;
CREATE INDEX transactions_by_app_transaction ON transactions (id >> 16, substr(app_transaction_id, -8))
    WHERE app_transaction_id IS NOT NULL;
