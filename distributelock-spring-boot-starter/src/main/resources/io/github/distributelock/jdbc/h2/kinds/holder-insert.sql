-- Records a reader or the writer of the key, with its own lease and token, under the key's row
-- lock and before the key's row is taken or joined, whose lease is then read from this row and
-- the key's other live holders (word-take-holders.sql).
-- A row of this owner whose lease ran out is replaced.
-- The rows of other readers and writers whose lease ran out are deleted as well, so that the
-- holder table alone tells that they left: H2 fixes CURRENT_TIMESTAMP for the rest of a
-- transaction at the first statement that reads it, and a renewal whose clock was read while
-- its lease still ran would otherwise find its row running and revive it next to the holder
-- recorded here. The other databases read the clock per statement.
DELETE FROM ${table}_h WHERE lock_key = :key AND (owner = :owner OR expires_at <= CURRENT_TIMESTAMP);
INSERT INTO ${table}_h (lock_key, owner, kind, fencing_token, expires_at, acquired_at)
VALUES (:key, :owner, :kind, :token,
	DATEADD(MILLISECOND, CAST(:lease_ms AS BIGINT), CURRENT_TIMESTAMP), CURRENT_TIMESTAMP);
