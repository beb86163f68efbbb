-- Deletes the waiters, readers, writers and permit holders kinds/purge-candidates.sql found (:keys,
-- one (lock_key, owner) or (lock_key, slot) pair of bind parameters per row, sorted), through the
-- primary key only, as purge.sql does, each only if its lease still ran out longer ago than the
-- retention: such rows are inert, as every other statement only counts rows whose lease still
-- runs. Without FORCE INDEX, MariaDB read a whole table for a list of one pair, and locked every
-- row of it (JdbcPurgeDuringRenewalTests).
DELETE ${table}_q FROM ${table}_q FORCE INDEX (PRIMARY) WHERE (lock_key, owner) IN (:keys)
	AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND;
DELETE ${table}_h FROM ${table}_h FORCE INDEX (PRIMARY) WHERE (lock_key, owner) IN (:keys)
	AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND;
DELETE ${table}_p FROM ${table}_p FORCE INDEX (PRIMARY) WHERE (lock_key, slot) IN (:keys)
	AND expires_at < UTC_TIMESTAMP(6) - INTERVAL (:retention_ms * 1000) MICROSECOND;
