-- What a fair, read/write or permit attempt decides on, read in one statement (after the key's
-- row is locked, or without a lock by a waiter that polls): the live holder of the lock table's
-- row (a plain or fair owner, or the marker of readers, a writer or permit holders) and its
-- remaining lease; this owner's place in the queue and how many live waiters are ahead of it;
-- the other live waiters, and the writers among them; the live readers and writer, and the live
-- permit holders, with when the soonest of their leases ends: the next permit frees then, while
-- the key's row lasts as long as the longest. H2's CURRENT_TIMESTAMP keeps the value of the
-- transaction's first read of the clock (2.3 and 2.4: the first statement that reads it, here
-- after the row lock, whose statement reads none), so a lease that runs out later in the
-- transaction still counts here, and the waiter finds it run out at its next poll.
SELECT
	(SELECT owner FROM ${table} WHERE lock_key = :key AND expires_at > CURRENT_TIMESTAMP) AS holder,
	(SELECT CAST(CEILING((EXTRACT(EPOCH FROM expires_at) - EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)) * 1000) AS BIGINT)
		FROM ${table} WHERE lock_key = :key AND expires_at > CURRENT_TIMESTAMP) AS remaining_ms,
	(SELECT arrival FROM ${table}_q
		WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP) AS arrival,
	(SELECT COUNT(*) FROM ${table}_q o WHERE o.lock_key = :key AND o.expires_at > CURRENT_TIMESTAMP
		AND o.arrival < (SELECT m.arrival FROM ${table}_q m WHERE m.lock_key = :key AND m.owner = :owner)) AS ahead,
	(SELECT COUNT(*) FROM ${table}_q
		WHERE lock_key = :key AND owner <> :owner AND expires_at > CURRENT_TIMESTAMP) AS waiting,
	(SELECT COUNT(*) FROM ${table}_q WHERE lock_key = :key AND owner <> :owner AND kind = 'write'
		AND expires_at > CURRENT_TIMESTAMP) AS writers,
	(SELECT COUNT(*) FROM ${table}_h WHERE lock_key = :key AND expires_at > CURRENT_TIMESTAMP) AS holders,
	(SELECT COUNT(*) FROM ${table}_p WHERE lock_key = :key AND expires_at > CURRENT_TIMESTAMP) AS permits,
	(SELECT CAST(CEILING((EXTRACT(EPOCH FROM MIN(expires_at)) - EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)) * 1000) AS BIGINT)
		FROM ${table}_p WHERE lock_key = :key AND expires_at > CURRENT_TIMESTAMP) AS next_permit_ms
