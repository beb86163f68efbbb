-- A waiter still in the queue attempts again: its place is kept for another waiter lease.
UPDATE ${table}_q SET expires_at = statement_timestamp() + CAST(:waiter_lease_ms AS BIGINT) * INTERVAL '1 millisecond'
WHERE lock_key = :key AND owner = :owner
