-- Run last in the transaction of a fair, write, read or permit release that freed its holder:
-- when the key's row is free now (no holder of any kind left), or its lease ends sooner than
-- before this release (:held_until, read when the row was locked: the holder that left had the
-- longest lease), notifies the lock table's channel with the key, as a plain release does
-- (release-notify.sql), so that a plain waiter woken by notifications takes the key at once, or
-- reads the shorter lease and takes the key when it ends rather than at its next check.
-- PostgreSQL delivers it when the transaction commits. For a lock table without the waited
-- column; release-notify-waited.sql otherwise.
SELECT pg_notify(:channel, lock_key) FROM ${table}
WHERE lock_key = :key AND (expires_at <= statement_timestamp()
	OR expires_at < CAST(:held_until AS TIMESTAMP WITH TIME ZONE))
