-- Extends the lease of a permit holder that still holds its slot.
UPDATE ${table}_p SET expires_at = DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP)
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
