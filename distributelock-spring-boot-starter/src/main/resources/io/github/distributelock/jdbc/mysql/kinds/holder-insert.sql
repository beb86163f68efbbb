-- Records a reader or the writer of the key, with its own lease and token, under the key's row
-- lock and before the key's row is taken or joined, whose lease is then read from this row and
-- the key's other live holders (word-take-holders.sql).
-- A row of this owner (whose lease ran out) is replaced.
-- One insert rather than a delete and an insert: a delete that finds no row locks the gap
-- where it would be, and two attempts on neighbouring keys that each locked the gap and then
-- inserted into it deadlocked each other.
INSERT INTO ${table}_h (lock_key, owner, kind, fencing_token, expires_at, acquired_at)
VALUES (:key, :owner, :kind, :token,
	UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE kind = :kind, fencing_token = :token,
	expires_at = UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, acquired_at = UTC_TIMESTAMP(6)
