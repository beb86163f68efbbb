-- Makes the next fencing token larger than :floor, the largest token drawn in any shard,
-- when a sharded lock table records a new shard list: a key that moves to this database
-- keeps getting larger tokens than it had in its old one. Never lowers the sequence, as
-- another instance starting with the same list may have raised it above a :floor read
-- earlier and drawn tokens since: the statement draws the next value itself and restarts
-- there unless :floor is higher (that value was handed to no one, so giving it again is
-- safe). H2 takes the parameter in this DDL, so the number is not put into the SQL.
ALTER SEQUENCE ${sequence} RESTART WITH GREATEST(CAST(:floor AS BIGINT) + 1, NEXT VALUE FOR ${sequence})
