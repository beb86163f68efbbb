-- acquire-marking.sql for a caller with less time left than the statement timeout: see
-- acquire-bounded.sql.
INSERT INTO ${table} AS held (lock_key, owner, fencing_token, expires_at, acquired_at, waited)
VALUES (CASE WHEN set_config('lock_timeout', CAST(:lock_wait AS TEXT), true) IS NOT NULL THEN CAST(:key AS VARCHAR) END,
	:owner, nextval('${sequence}'),
	CURRENT_TIMESTAMP + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond', CURRENT_TIMESTAMP, FALSE)
ON CONFLICT (lock_key) DO UPDATE
	SET owner = CASE WHEN held.expires_at <= CURRENT_TIMESTAMP THEN EXCLUDED.owner ELSE held.owner END,
		-- Drawn only by a take-over, after the row is locked, so tokens of a key only grow.
		fencing_token = CASE WHEN held.expires_at <= CURRENT_TIMESTAMP THEN nextval('${sequence}')
			ELSE held.fencing_token END,
		expires_at = CASE WHEN held.expires_at <= CURRENT_TIMESTAMP THEN EXCLUDED.expires_at
			ELSE held.expires_at END,
		acquired_at = CASE WHEN held.expires_at <= CURRENT_TIMESTAMP THEN EXCLUDED.acquired_at
			ELSE held.acquired_at END,
		waited = held.expires_at > CURRENT_TIMESTAMP
RETURNING CASE WHEN held.waited THEN NULL ELSE held.fencing_token END AS fencing_token,
	CAST(CEIL(EXTRACT(EPOCH FROM (held.expires_at - CURRENT_TIMESTAMP)) * 1000) AS BIGINT) AS remaining_ms
