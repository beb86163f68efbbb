-- Finds the waiters, readers, writers and permit holders whose lease ran out longer ago than
-- the retention (they crashed, or stopped waiting without leaving), by a plain read that locks
-- nothing, as purge-candidates.sql does for the lock table: one query per table, in the order
-- of kinds/purge.sql, which deletes each row found by its primary key (the columns returned).
SELECT lock_key, owner FROM ${table}_q
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND LIMIT 1000;
SELECT lock_key, owner FROM ${table}_h
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND LIMIT 1000;
SELECT lock_key, slot FROM ${table}_p
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND LIMIT 1000;
