-- SPDX-License-Identifier: GPL-3.0-or-later
-- 0004: notifications found by their transaction.
--
-- A consumption request is open until its 12-hour deadline, or until a REFUND or REFUND_DECLINED
-- for its transaction, signed no earlier than the request, says Apple has decided. The report
-- looks those up for each request it lists.

CREATE INDEX notifications_by_transaction ON notifications (environment, transaction_id)
    WHERE transaction_id IS NOT NULL;
