-- Extends the lease of a reader or writer that still holds the key.
UPDATE ${table}_h SET expires_at = DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP)
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
