-- Draws a fencing token (or a waiter's arrival number) from the lock table's sequence, the one
-- every kind of lock draws from. Run under the key's row lock, so the tokens of a key follow the
-- order of its acquisitions, whatever their kinds.
SELECT NEXT VALUE FOR ${sequence} AS token
