-- release-notify.sql for a lock table with the waited column: notifies only when a plain attempt
-- refused during this hold marked the row (acquire-marking.sql), as release-notify-waited.sql of
-- a plain release does, so that a release nobody waited for notifies nobody; when the row is free
-- now, or its lease ends sooner than before this release (:held_until), as release-notify.sql
-- says. It clears the mark it notified for: a plain take-over clears it, but a fair, write, read
-- or permit one does not (their statements serve lock tables without the column too), so the mark
-- would outlive this hold and every later release of the key would notify. A plain waiter woken
-- and refused again marks the row again.
UPDATE ${table} SET waited = FALSE
WHERE lock_key = :key AND (expires_at <= statement_timestamp()
	OR expires_at < CAST(:held_until AS TIMESTAMP WITH TIME ZONE)) AND waited
RETURNING CAST(pg_notify(:channel, lock_key) AS TEXT) AS notified
