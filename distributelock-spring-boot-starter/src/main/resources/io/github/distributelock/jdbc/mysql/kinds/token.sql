-- Draws a fencing token (or a waiter's arrival number) from the AUTO_INCREMENT counter of the
-- table the plain attempts draw from (MySQL has no sequences): a new row, whose value
-- LAST_INSERT_ID() then holds for this connection. Run under the key's row lock, after every
-- earlier holder of the key committed, so the token is larger than theirs whatever their kinds;
-- the key's row then carries it, so a plain attempt that drew an older token cannot take the row
-- over with it.
INSERT INTO ${sequence} () VALUES ();
SELECT LAST_INSERT_ID() AS token
