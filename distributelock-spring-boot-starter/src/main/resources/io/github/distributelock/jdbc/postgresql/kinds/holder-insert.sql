-- Records a reader or the writer of the key, with its own lease and token, under the key's row
-- lock and before the key's row is taken or joined, whose lease is then read from this row and
-- the key's other live holders (word-take-holders.sql).
-- A row of this owner whose lease ran out is replaced.
DELETE FROM ${table}_h WHERE lock_key = :key AND owner = :owner;
INSERT INTO ${table}_h (lock_key, owner, kind, fencing_token, expires_at, acquired_at)
VALUES (:key, :owner, :kind, :token,
	statement_timestamp() + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond', statement_timestamp());
