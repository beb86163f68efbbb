-- Inserts the lock, or takes over a row whose lease has run out, in one statement.
-- The assignments run in order and each reads the row as left by the ones before it, so
-- expires_at, which decides, is assigned last. The token of a take-over is drawn after the
-- row is locked, so tokens of a key only grow. Acquired when the row carries the value this
-- statement last drew from the sequence. Returns one row: the fencing token when acquired
-- (else NULL), and how many milliseconds the holder's lease still runs.
INSERT INTO ${table} (lock_key, owner, fencing_token, expires_at, acquired_at)
VALUES (:key, :owner, NEXTVAL(${sequence}),
	UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE
	owner = IF(expires_at <= UTC_TIMESTAMP(6), VALUE(owner), owner),
	fencing_token = IF(expires_at <= UTC_TIMESTAMP(6), NEXTVAL(${sequence}), fencing_token),
	acquired_at = IF(expires_at <= UTC_TIMESTAMP(6), VALUE(acquired_at), acquired_at),
	expires_at = IF(expires_at <= UTC_TIMESTAMP(6), VALUE(expires_at), expires_at)
RETURNING IF(fencing_token = PREVIOUS VALUE FOR ${sequence}, fencing_token, NULL) AS fencing_token,
	CAST(CEIL(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) / 1000) AS SIGNED) AS remaining_ms
