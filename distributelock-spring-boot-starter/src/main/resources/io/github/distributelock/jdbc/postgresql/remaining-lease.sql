-- How many milliseconds the holder's lease still runs; no row when the key is free.
SELECT CAST(CEIL(EXTRACT(EPOCH FROM (expires_at - CURRENT_TIMESTAMP)) * 1000) AS BIGINT) AS remaining_ms
FROM ${table} WHERE lock_key = :key
