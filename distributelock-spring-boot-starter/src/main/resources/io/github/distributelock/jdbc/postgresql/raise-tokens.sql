-- Makes the next fencing token larger than :floor, the largest token drawn in any shard,
-- when a sharded lock table records a new shard list: a key that moves to this database
-- keeps getting larger tokens than it had in its old one. Never lowers the sequence, as
-- another instance starting with the same list may have raised it above a :floor read
-- earlier and drawn tokens since: setval runs only if the value this statement draws
-- itself is still below :floor (no row when it is not).
SELECT setval('${sequence}', CAST(:floor AS BIGINT)) AS token
WHERE nextval('${sequence}') < CAST(:floor AS BIGINT)
