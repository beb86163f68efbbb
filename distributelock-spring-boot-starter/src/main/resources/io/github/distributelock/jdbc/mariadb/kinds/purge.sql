-- Deletes one waiter, reader, writer or permit holder found by kinds/purge-candidates.sql, by
-- its primary key, if its lease still ran out longer ago than the retention: such rows are
-- inert, as every other statement only counts rows whose lease still runs.
DELETE FROM ${table}_q WHERE lock_key = :lock_key AND owner = :owner
	AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND;
DELETE FROM ${table}_h WHERE lock_key = :lock_key AND owner = :owner
	AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND;
DELETE FROM ${table}_p WHERE lock_key = :lock_key AND slot = :slot
	AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND;
