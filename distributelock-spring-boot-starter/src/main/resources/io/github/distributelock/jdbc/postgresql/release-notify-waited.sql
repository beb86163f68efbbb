-- release-notify.sql for a lock table with the waited column: frees this owner's lock and
-- notifies the key only when an attempt refused during this hold marked the row
-- (acquire-marking.sql); CASE calls pg_notify for a marked row only. Returns one row when this
-- owner held the lock with its lease still running, none otherwise.
-- It clears the owner as release.sql does, and for the same reason.
UPDATE ${table} SET expires_at = CURRENT_TIMESTAMP, owner = ''
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
RETURNING CASE WHEN waited THEN CAST(pg_notify(:channel, lock_key) AS TEXT) END AS notified
