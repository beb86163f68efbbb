-- Takes the key's row of the lock table, found free under its row lock: for a fair owner, or for
-- the marker of permit holders (owners starting with U+0001, which no caller can present); readers
-- and a writer take it with word-take-holders.sql. The row carries the newest token of the key, so a plain attempt on MySQL, which
-- draws its token first, can never take the row over with an older one.
UPDATE ${table} SET owner = :holder, fencing_token = :token,
	expires_at = DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP),
	acquired_at = CURRENT_TIMESTAMP
WHERE lock_key = :key
