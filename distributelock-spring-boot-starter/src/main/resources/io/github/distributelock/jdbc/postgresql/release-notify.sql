-- Frees this owner's lock as release.sql does and, in the same statement, notifies the
-- instances that LISTEN on the lock table's channel, with the key as the payload (a
-- parameter: at most 2048 bytes, within PostgreSQL's 8000). PostgreSQL delivers the
-- notification when the statement commits, so a waiter it wakes finds the row free.
-- Returns one row when this owner held the lock with its lease still running, none
-- otherwise (and then notifies nobody).
WITH released AS (
	UPDATE ${table} SET expires_at = CURRENT_TIMESTAMP, owner = ''
	WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
	RETURNING lock_key
)
SELECT pg_notify(:channel, lock_key) FROM released
