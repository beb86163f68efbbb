-- Deletes the waiters, readers, writers and permit holders whose lease ran out longer ago than
-- the retention (they crashed, or stopped waiting without leaving): such rows are inert, as
-- every other statement only counts rows whose lease still runs.
DELETE FROM ${table}_q WHERE expires_at < statement_timestamp() - CAST(:retention_ms AS BIGINT) * INTERVAL '1 millisecond';
DELETE FROM ${table}_h WHERE expires_at < statement_timestamp() - CAST(:retention_ms AS BIGINT) * INTERVAL '1 millisecond';
DELETE FROM ${table}_p WHERE expires_at < statement_timestamp() - CAST(:retention_ms AS BIGINT) * INTERVAL '1 millisecond';
