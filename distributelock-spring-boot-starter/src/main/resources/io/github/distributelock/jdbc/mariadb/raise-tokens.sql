-- Makes the next fencing token larger than :floor, the largest token drawn in any shard,
-- when a sharded lock table records a new shard list: a key that moves to this database
-- keeps getting larger tokens than it had in its old one. SETVAL never lowers a sequence.
SELECT SETVAL(${sequence}, :floor) AS token
