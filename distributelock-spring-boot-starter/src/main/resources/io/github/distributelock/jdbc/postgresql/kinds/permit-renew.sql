-- Extends the lease of a permit holder that still holds its slot.
UPDATE ${table}_p SET expires_at = statement_timestamp() + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond'
WHERE lock_key = :key AND owner = :owner AND expires_at > statement_timestamp()
