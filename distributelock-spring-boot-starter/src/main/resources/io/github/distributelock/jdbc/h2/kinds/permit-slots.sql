-- The permit slots of the key held by others, with how long each lease still runs.
SELECT slot, CAST(CEILING((EXTRACT(EPOCH FROM expires_at) - EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)) * 1000) AS BIGINT) AS remaining_ms
FROM ${table}_p WHERE lock_key = :key AND owner <> :owner AND expires_at > CURRENT_TIMESTAMP
