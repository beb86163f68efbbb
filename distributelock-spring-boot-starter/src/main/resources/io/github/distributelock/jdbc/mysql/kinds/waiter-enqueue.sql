-- Puts this owner at the back of the key's queue, with the arrival number just drawn from the
-- sequence under the key's row lock (so arrivals follow the order of the attempts) and a waiter
-- lease of its own: a waiter that stops attempting (it crashed) leaves the queue when the lease
-- runs out. A row of this owner whose lease ran out is replaced: a waiter that lost its place
-- comes back at the back, never at its old place. One insert rather than a delete and an insert,
-- which deadlocked attempts on neighbouring keys (see holder-insert.sql).
INSERT INTO ${table}_q (lock_key, owner, kind, arrival, expires_at)
VALUES (:key, :owner, :kind, :arrival,
	UTC_TIMESTAMP(6) + INTERVAL (:waiter_lease_ms * 1000) MICROSECOND)
ON DUPLICATE KEY UPDATE kind = :kind, arrival = :arrival,
	expires_at = UTC_TIMESTAMP(6) + INTERVAL (:waiter_lease_ms * 1000) MICROSECOND
