-- How many milliseconds the holder's lease still runs; no row when the key is free.
-- Epoch seconds, as DATEDIFF would ignore the time zones of the two timestamps.
SELECT CAST(CEILING((EXTRACT(EPOCH FROM expires_at) - EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)) * 1000) AS BIGINT)
	AS remaining_ms
FROM ${table} WHERE lock_key = :key
