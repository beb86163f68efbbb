-- Deletes the rows of locks released, or left to expire, longer ago than the retention.
DELETE FROM ${table}
WHERE expires_at < DATEADD(MILLISECOND, -CAST(:retention_ms AS BIGINT), CURRENT_TIMESTAMP)
