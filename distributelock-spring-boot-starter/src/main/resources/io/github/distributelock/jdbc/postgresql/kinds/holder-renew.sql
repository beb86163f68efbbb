-- Extends the lease of a reader or writer that still holds the key.
UPDATE ${table}_h SET expires_at = statement_timestamp() + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond'
WHERE lock_key = :key AND owner = :owner AND expires_at > statement_timestamp()
