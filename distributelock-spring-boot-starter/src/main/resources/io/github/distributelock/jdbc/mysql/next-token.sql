-- Draws a fencing token from the counter table, as an attempt does, to learn how far it
-- has come when a sharded lock table records a shard list (gaps are harmless). Both
-- statements run on one connection, in one transaction.
INSERT INTO ${sequence} () VALUES ();
SELECT LAST_INSERT_ID() AS token
