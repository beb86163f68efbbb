-- Records a reader or the writer of the key, with its own lease and token, after the key's row
-- was taken or joined under its row lock. A row of this owner whose lease ran out is replaced.
DELETE FROM ${table}_h WHERE lock_key = :key AND owner = :owner;
INSERT INTO ${table}_h (lock_key, owner, kind, fencing_token, expires_at, acquired_at)
VALUES (:key, :owner, :kind, :token,
	statement_timestamp() + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond', statement_timestamp());
