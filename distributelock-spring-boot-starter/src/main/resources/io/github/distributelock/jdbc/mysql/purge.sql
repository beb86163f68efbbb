-- Deletes the rows of locks released, or left to expire, longer ago than the retention.
DELETE FROM ${table}
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND
