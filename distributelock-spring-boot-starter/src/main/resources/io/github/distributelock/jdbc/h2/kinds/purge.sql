-- Deletes the waiters, readers, writers and permit holders whose lease ran out longer ago than
-- the retention (they crashed, or stopped waiting without leaving): such rows are inert, as
-- every other statement only counts rows whose lease still runs.
DELETE FROM ${table}_q WHERE expires_at < DATEADD(MILLISECOND, -CAST(:retention_ms AS BIGINT), CURRENT_TIMESTAMP);
DELETE FROM ${table}_h WHERE expires_at < DATEADD(MILLISECOND, -CAST(:retention_ms AS BIGINT), CURRENT_TIMESTAMP);
DELETE FROM ${table}_p WHERE expires_at < DATEADD(MILLISECOND, -CAST(:retention_ms AS BIGINT), CURRENT_TIMESTAMP);
