-- Inserts the lock, or takes over a row whose lease has run out, in one statement (H2 has
-- no ON CONFLICT ... DO UPDATE: a MERGE with a condition on the match does the same).
-- H2 draws NEXT VALUE once per row, before the statement waits for an uncommitted row of the
-- key, and keeps that value when it goes on to the take-over: so a take-over also needs the
-- token to be larger than the row's. An attempt that drew its token before a later holder
-- took the row, and reaches the row after that holder released it, changes nothing and tries
-- again with a new token, as on MySQL. Tokens of a key therefore only grow.
-- Returns a row with the fencing token only when acquired.
SELECT fencing_token, CAST(NULL AS BIGINT) AS remaining_ms FROM FINAL TABLE (
	MERGE INTO ${table} AS held
	USING (VALUES (CAST(:key AS VARCHAR), CAST(:owner AS VARCHAR), CAST(:lease_ms AS BIGINT)))
		AS attempt (lock_key, owner, lease_ms)
	ON held.lock_key = attempt.lock_key
	WHEN MATCHED AND held.expires_at <= CURRENT_TIMESTAMP AND held.fencing_token < NEXT VALUE FOR ${sequence}
		THEN UPDATE
		SET owner = attempt.owner, fencing_token = NEXT VALUE FOR ${sequence},
			expires_at = DATEADD(MILLISECOND, attempt.lease_ms, CURRENT_TIMESTAMP), acquired_at = CURRENT_TIMESTAMP
	WHEN NOT MATCHED THEN
		INSERT (lock_key, owner, fencing_token, expires_at, acquired_at)
		VALUES (attempt.lock_key, attempt.owner, NEXT VALUE FOR ${sequence},
			DATEADD(MILLISECOND, attempt.lease_ms, CURRENT_TIMESTAMP), CURRENT_TIMESTAMP)
)
