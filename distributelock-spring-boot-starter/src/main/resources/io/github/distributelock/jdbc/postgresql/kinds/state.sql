-- What a fair, read/write or permit attempt decides on, read in one statement (after the key's
-- row is locked, or without a lock by a waiter that polls): the live holder of the lock table's
-- row (a plain or fair owner, or the marker of readers, a writer or permit holders) and its
-- remaining lease; this owner's place in the queue and how many live waiters are ahead of it;
-- the other live waiters, and the writers among them; the live readers and writer, and the live
-- permit holders, with when the soonest of their leases ends: the next permit frees then, while
-- the key's row lasts as long as the longest. statement_timestamp() is the time this statement
-- started, not the start of the transaction, which may have waited for the row lock.
SELECT
	(SELECT owner FROM ${table} WHERE lock_key = :key AND expires_at > statement_timestamp()) AS holder,
	(SELECT CAST(CEIL(EXTRACT(EPOCH FROM (expires_at - statement_timestamp())) * 1000) AS BIGINT)
		FROM ${table} WHERE lock_key = :key AND expires_at > statement_timestamp()) AS remaining_ms,
	(SELECT arrival FROM ${table}_q
		WHERE lock_key = :key AND owner = :owner AND expires_at > statement_timestamp()) AS arrival,
	(SELECT COUNT(*) FROM ${table}_q o WHERE o.lock_key = :key AND o.expires_at > statement_timestamp()
		AND o.arrival < (SELECT m.arrival FROM ${table}_q m WHERE m.lock_key = :key AND m.owner = :owner)) AS ahead,
	(SELECT COUNT(*) FROM ${table}_q
		WHERE lock_key = :key AND owner <> :owner AND expires_at > statement_timestamp()) AS waiting,
	(SELECT COUNT(*) FROM ${table}_q WHERE lock_key = :key AND owner <> :owner AND kind = 'write'
		AND expires_at > statement_timestamp()) AS writers,
	(SELECT COUNT(*) FROM ${table}_h WHERE lock_key = :key AND expires_at > statement_timestamp()) AS holders,
	(SELECT COUNT(*) FROM ${table}_p WHERE lock_key = :key AND expires_at > statement_timestamp()) AS permits,
	(SELECT CAST(CEIL(EXTRACT(EPOCH FROM (MIN(expires_at) - statement_timestamp())) * 1000) AS BIGINT)
		FROM ${table}_p WHERE lock_key = :key AND expires_at > statement_timestamp()) AS next_permit_ms
