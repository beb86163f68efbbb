-- Inserts the lock, or takes over a row whose lease has run out. MySQL has neither sequences
-- nor RETURNING, so an attempt is three statements, run in order in one transaction on one
-- connection; the last one returns the row.
--
-- 1. Draws a fencing token: a new row of the counter table, whose AUTO_INCREMENT value
-- LAST_INSERT_ID() then holds for this connection. The counter is not locked until commit
-- (as a counter row updated in place would be), so attempts on other keys never queue on it.
INSERT INTO ${sequence} () VALUES ();
-- 2. The token was drawn before the row was locked, so a take-over also needs it to be larger
-- than the row's: an attempt that drew its token before a later holder took the row, and
-- reaches the row after that holder released it, changes nothing and tries again with a new
-- token. Tokens of a key therefore only grow. The assignments run in order and each reads the
-- row as left by the ones before: fencing_token decides, so it is assigned first, and the
-- others follow it. Keys, owners and leases are parameters (not VALUES(), deprecated in 8.0).
INSERT INTO ${table} (lock_key, owner, fencing_token, expires_at, acquired_at)
VALUES (:key, :owner, LAST_INSERT_ID(),
	UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE
	fencing_token = IF(expires_at <= UTC_TIMESTAMP(6) AND fencing_token < LAST_INSERT_ID(),
		LAST_INSERT_ID(), fencing_token),
	owner = IF(fencing_token = LAST_INSERT_ID(), :owner, owner),
	acquired_at = IF(fencing_token = LAST_INSERT_ID(), UTC_TIMESTAMP(6), acquired_at),
	expires_at = IF(fencing_token = LAST_INSERT_ID(),
		UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, expires_at);
-- 3. Acquired when the row carries the token this attempt drew (tokens are unique). Returns
-- the fencing token when acquired (else NULL), and how many milliseconds the holder's lease
-- still runs.
SELECT IF(fencing_token = LAST_INSERT_ID(), fencing_token, NULL) AS fencing_token,
	CAST(CEIL(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) / 1000) AS SIGNED) AS remaining_ms
FROM ${table} WHERE lock_key = :key
