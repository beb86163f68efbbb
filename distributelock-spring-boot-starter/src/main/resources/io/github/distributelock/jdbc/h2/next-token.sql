-- Draws a fencing token, to learn how far the sequence has come when a sharded lock table
-- records a shard list (gaps are harmless).
SELECT NEXT VALUE FOR ${sequence} AS token
