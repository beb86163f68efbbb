-- A waiter still in the queue attempts again: its place is kept for another waiter lease.
UPDATE ${table}_q SET expires_at = DATEADD(MILLISECOND, CAST(:waiter_lease_ms AS BIGINT), CURRENT_TIMESTAMP)
WHERE lock_key = :key AND owner = :owner
