-- Extends the lease of a permit holder that still holds its slot.
UPDATE ${table}_p SET expires_at = UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND
WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6)
