-- acquire.sql for a lock table with the waited column (schema.sql creates it, waited-column-add.sql
-- adds it to an older table), in one plain statement: it inserts the lock, or takes over a row whose
-- lease has run out, or, when the holder's lease still runs, leaves the holder as it is and
-- marks the row as waited for, so that the holder's release notifies (release-notify-waited.sql).
-- A take-over clears the mark. A release nobody waited for then notifies nobody and commits
-- without the lock by which PostgreSQL serializes the commits of notifying transactions.
-- ON CONFLICT reads the newest committed row, so a refused attempt always finds and marks the
-- holder's row.
-- Returns one row: the fencing token when acquired (else NULL), and how many milliseconds the
-- holder's lease still runs.
INSERT INTO ${table} AS held (lock_key, owner, fencing_token, expires_at, acquired_at, waited)
VALUES (:key, :owner, nextval('${sequence}'),
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
