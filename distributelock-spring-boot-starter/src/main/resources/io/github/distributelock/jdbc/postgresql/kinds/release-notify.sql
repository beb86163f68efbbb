-- Run last in the transaction of a fair, write, read or permit release that freed its holder:
-- when the key's row is free now (no holder of any kind left), notifies the lock table's channel
-- with the key, as a plain release does (release-notify.sql), so that a plain waiter woken by
-- notifications takes the key at once. PostgreSQL delivers it when the transaction commits.
-- For a lock table without the waited column; release-notify-waited.sql otherwise.
SELECT pg_notify(:channel, lock_key) FROM ${table}
WHERE lock_key = :key AND expires_at <= statement_timestamp()
