-- Puts this owner at the back of the key's queue, with the arrival number just drawn from the
-- sequence under the key's row lock (so arrivals follow the order of the attempts) and a waiter
-- lease of its own: a waiter that stops attempting (it crashed) leaves the queue when the lease
-- runs out. A row of this owner whose lease ran out is deleted first: a waiter that lost its
-- place comes back at the back, never at its old place.
DELETE FROM ${table}_q WHERE lock_key = :key AND owner = :owner;
INSERT INTO ${table}_q (lock_key, owner, kind, arrival, expires_at)
VALUES (:key, :owner, :kind, :arrival,
	UTC_TIMESTAMP(6) + INTERVAL (:waiter_lease_ms * 1000) MICROSECOND);
