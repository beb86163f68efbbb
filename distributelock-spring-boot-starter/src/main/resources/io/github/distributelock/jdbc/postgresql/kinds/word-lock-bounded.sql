-- word-lock.sql as the first statement of a bounded release (a waiter leaving the queue at its
-- deadline): the key is read through a scalar subquery that first sets lock_timeout (:lock_wait)
-- until the end of the operation's transaction, so the row lock is waited for that long at most.
-- A subquery, not the CASE of acquire-bounded.sql: compared with a volatile expression, lock_key
-- could not be looked up in its index; the subquery's one value can.
SELECT lock_key, expires_at FROM ${table} WHERE lock_key = (SELECT CAST(:key AS VARCHAR) WHERE set_config('lock_timeout', CAST(:lock_wait AS TEXT), true) IS NOT NULL) FOR UPDATE
