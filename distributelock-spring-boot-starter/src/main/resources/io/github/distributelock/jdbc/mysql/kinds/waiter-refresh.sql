-- A waiter still in the queue attempts again: its place is kept for another waiter lease.
UPDATE ${table}_q SET expires_at = UTC_TIMESTAMP(6) + INTERVAL (:waiter_lease_ms * 1000) MICROSECOND
WHERE lock_key = :key AND owner = :owner
