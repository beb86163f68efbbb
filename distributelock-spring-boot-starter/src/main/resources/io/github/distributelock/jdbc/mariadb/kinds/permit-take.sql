-- Takes permit slot :slot (0 to N-1) of the key, freed before by permit-free.sql where this owner
-- had another slot or the slot's lease ran out. The slot's primary key is what bounds the holders
-- to N, whatever else happens: the insert fails on a slot whose holder's lease still runs, even
-- for a statement that raced past the key's row lock.
INSERT INTO ${table}_p (lock_key, slot, owner, fencing_token, expires_at, acquired_at)
VALUES (:key, :slot, :owner, :token,
	UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND, UTC_TIMESTAMP(6));
