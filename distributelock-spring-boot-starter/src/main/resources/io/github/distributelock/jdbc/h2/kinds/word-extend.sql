-- A reader, writer or permit holder renewed its own lease: the key's row, held by their marker,
-- lasts at least as long.
UPDATE ${table}
SET expires_at = GREATEST(expires_at, DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP))
WHERE lock_key = :key AND owner = :holder AND expires_at > CURRENT_TIMESTAMP
