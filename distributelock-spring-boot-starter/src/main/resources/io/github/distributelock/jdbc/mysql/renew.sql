-- Extends the lease if this owner still holds the lock and its lease has not run out.
UPDATE ${table} SET expires_at = UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND
WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6)
