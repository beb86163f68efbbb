-- Finds up to :batch waiters, readers, writers and permit holders whose lease ran out longer ago
-- than the retention (they crashed, or stopped waiting without leaving), by a plain read that
-- locks nothing, as purge-candidates.sql does for the lock table: one query per table, in the
-- order of kinds/purge.sql, which deletes the rows found by their primary key (the columns
-- returned).
SELECT lock_key, owner FROM ${table}_q
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND LIMIT :batch;
SELECT lock_key, owner FROM ${table}_h
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND LIMIT :batch;
SELECT lock_key, slot FROM ${table}_p
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND LIMIT :batch;
