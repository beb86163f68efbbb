-- Takes permit slot :slot (0 to N-1) of the key. The slot's primary key is what bounds the holders
-- to N, whatever else happens: the insert fails on a slot whose holder's lease still runs, even
-- for a statement that raced past the key's row lock. This owner's earlier slot, if any, is
-- given up first, and a slot whose lease ran out is freed.
DELETE FROM ${table}_p WHERE lock_key = :key AND owner = :owner;
DELETE FROM ${table}_p WHERE lock_key = :key AND slot = :slot AND expires_at <= UTC_TIMESTAMP(6);
INSERT INTO ${table}_p (lock_key, slot, owner, fencing_token, expires_at, acquired_at)
VALUES (:key, :slot, :owner, :token,
	UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, UTC_TIMESTAMP(6));
