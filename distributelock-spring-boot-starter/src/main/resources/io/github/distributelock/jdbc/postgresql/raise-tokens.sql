-- Makes the next fencing token larger than :floor, the largest token drawn in any shard,
-- when a sharded lock table records a new shard list: a key that moves to this database
-- keeps getting larger tokens than it had in its old one. Run only when the sequence is
-- below :floor, while no instance of the new list serves.
SELECT setval('${sequence}', CAST(:floor AS BIGINT)) AS token
