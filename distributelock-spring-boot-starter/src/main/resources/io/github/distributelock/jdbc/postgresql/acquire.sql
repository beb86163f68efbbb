-- Inserts the lock, or takes over a row whose lease has run out, in one statement.
-- The token of a take-over is drawn after the row is locked, so tokens of a key only grow.
-- Returns one row: the fencing token when acquired (else NULL), and how many milliseconds
-- the holder's lease still runs, read from the snapshot the statement started with.
WITH attempt AS (
	INSERT INTO ${table} AS held (lock_key, owner, fencing_token, expires_at, acquired_at)
	VALUES (:key, :owner, nextval('${sequence}'),
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
