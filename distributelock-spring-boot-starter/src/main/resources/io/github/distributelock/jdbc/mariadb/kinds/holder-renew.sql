-- Extends the lease of a reader or writer that still holds the key.
UPDATE ${table}_h SET expires_at = UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND
WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6)
