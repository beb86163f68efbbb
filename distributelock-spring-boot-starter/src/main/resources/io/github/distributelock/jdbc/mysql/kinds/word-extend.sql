-- A reader, writer or permit holder renewed its own lease: the key's row, held by their marker,
-- lasts at least as long.
UPDATE ${table}
SET expires_at = GREATEST(expires_at, UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND)
WHERE lock_key = :key AND owner = :holder AND expires_at > UTC_TIMESTAMP(6)
