-- acquire.sql for a caller with less time left than the statement timeout: the same statement,
-- whose VALUES first sets lock_timeout (:lock_wait, such as 300ms) for this statement's transaction
-- alone, so that its wait for a row locked by another transaction (ON CONFLICT waits for it) ends
-- with SQLSTATE 55P03 when the caller's time is up, and is answered as a lock held by another.
-- VALUES is computed before the insert and its conflict check, and set_config is volatile, so the
-- CASE sets it on every execution before any row wait. A CASE rather than a scalar subquery: with
-- no subplan to run, the bound costs about half (2.5 against 5 us per statement, measured in a
-- loop of attempts and releases on one connection). is_local = true ends the setting with the
-- transaction, here the statement's own.
WITH attempt AS (
	INSERT INTO ${table} AS held (lock_key, owner, fencing_token, expires_at, acquired_at)
	VALUES (CASE WHEN set_config('lock_timeout', CAST(:lock_wait AS TEXT), true) IS NOT NULL THEN CAST(:key AS VARCHAR) END,
		:owner, nextval('${sequence}'),
		CURRENT_TIMESTAMP + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond', CURRENT_TIMESTAMP)
	ON CONFLICT (lock_key) DO UPDATE
		SET owner = EXCLUDED.owner, fencing_token = nextval('${sequence}'),
			expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at
		WHERE held.expires_at <= CURRENT_TIMESTAMP
	RETURNING held.fencing_token
)
SELECT (SELECT fencing_token FROM attempt) AS fencing_token,
	(SELECT CAST(CEIL(EXTRACT(EPOCH FROM (expires_at - CURRENT_TIMESTAMP)) * 1000) AS BIGINT)
		FROM ${table} WHERE lock_key = :key) AS remaining_ms
