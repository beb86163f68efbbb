-- Extends the lease if this owner still holds the lock and its lease has not run out.
UPDATE ${table} SET expires_at = DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP)
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
