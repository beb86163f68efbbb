-- Deletes the rows of locks released, or left to expire, longer ago than the retention.
DELETE FROM ${table}
WHERE expires_at < CURRENT_TIMESTAMP - CAST(:retention_ms AS BIGINT) * INTERVAL '1 millisecond'
