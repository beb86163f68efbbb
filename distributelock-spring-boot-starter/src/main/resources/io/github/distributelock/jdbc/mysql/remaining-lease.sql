-- How many milliseconds the holder's lease still runs; no row when the key is free.
SELECT CAST(CEIL(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) / 1000) AS SIGNED) AS remaining_ms
FROM ${table} WHERE lock_key = :key
