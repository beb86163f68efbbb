-- release-notify.sql for a lock table with the waited column: notifies only when a plain attempt
-- refused during this hold marked the row (acquire-marking.sql), as release-notify-waited.sql of
-- a plain release does, so that a release nobody waited for notifies nobody.
SELECT pg_notify(:channel, lock_key) FROM ${table}
WHERE lock_key = :key AND expires_at <= statement_timestamp() AND waited
