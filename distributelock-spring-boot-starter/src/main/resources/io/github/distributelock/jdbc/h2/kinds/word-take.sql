-- Takes the key's row of the lock table, found free under its row lock, for a fair owner, who has
-- no row of its own elsewhere; readers, a writer and permit holders take it with
-- word-take-holders.sql and word-take-permits.sql. The row carries the newest token of the key,
-- so a plain attempt on MySQL, which draws its token first, can never take the row over with an
-- older one.
UPDATE ${table} SET owner = :holder, fencing_token = :token,
	expires_at = DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP),
	acquired_at = CURRENT_TIMESTAMP
WHERE lock_key = :key
