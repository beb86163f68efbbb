-- Finds up to :batch rows of locks released, or left to expire, longer ago than the retention,
-- for purge.sql to delete by primary key. A plain (consistent) read, which locks nothing: a DELETE
-- that searched by expires_at locked every row it read under REPEATABLE READ, held locks too
-- (through the whole table without an index on expires_at), so renewals waited for it; through
-- that index it still locked the next row's entry, a held lock's, and it locks an index entry
-- before its row, the opposite order of an attempt taking a free row over, which can deadlock.
SELECT lock_key FROM ${table}
WHERE expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND
LIMIT :batch
