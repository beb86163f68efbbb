-- Deletes the rows of the keys purge-candidates.sql found (:keys, one bind parameter per key,
-- sorted), through the primary key only, so that it locks those rows, each first as every other
-- statement does, and no other; each only if it is still free for longer than the retention: it
-- may have been taken since it was read. FORCE INDEX (which only the multiple-table form of DELETE
-- takes), because the optimizer's own choice locked more: MySQL 8.0 searched the index on
-- expires_at of a table it estimated small, locking a range of it, held locks' entries too.
DELETE ${table} FROM ${table} FORCE INDEX (PRIMARY)
WHERE lock_key IN (:keys) AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND
