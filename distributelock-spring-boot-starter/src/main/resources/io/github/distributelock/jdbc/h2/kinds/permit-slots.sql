-- The permit slots of the key, each with whether this owner has it and how long its lease still
-- runs (zero or less once it has run out): the attempt picks a slot free of live holders, and
-- deletes this owner's earlier slot and a slot whose lease ran out one by one (permit-free.sql).
SELECT slot, CASE WHEN owner = :owner THEN 1 ELSE 0 END AS mine,
	CAST(CEILING((EXTRACT(EPOCH FROM expires_at) - EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)) * 1000) AS BIGINT) AS remaining_ms
FROM ${table}_p WHERE lock_key = :key
