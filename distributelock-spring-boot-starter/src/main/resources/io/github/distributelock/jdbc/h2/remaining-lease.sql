-- How many milliseconds the holder's lease still runs; no row when the key is free.
SELECT DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, expires_at) AS remaining_ms
FROM ${table} WHERE lock_key = :key
