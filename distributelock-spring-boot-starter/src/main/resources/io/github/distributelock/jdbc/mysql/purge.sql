-- Deletes the row of one key found by purge-candidates.sql, by its primary key, so that it
-- locks that row first as every other statement does, if it is still free for longer than
-- the retention: it may have been taken since it was read.
DELETE FROM ${table}
WHERE lock_key = :lock_key AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND
