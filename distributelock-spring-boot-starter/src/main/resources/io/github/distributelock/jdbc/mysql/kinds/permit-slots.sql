-- The permit slots of the key held by others, with how long each lease still runs.
SELECT slot, CAST(CEIL(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) / 1000) AS SIGNED) AS remaining_ms
FROM ${table}_p WHERE lock_key = :key AND owner <> :owner AND expires_at > UTC_TIMESTAMP(6)
