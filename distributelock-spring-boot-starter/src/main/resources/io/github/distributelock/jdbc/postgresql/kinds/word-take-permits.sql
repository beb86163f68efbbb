-- Takes the key's row of the lock table, found free under its row lock, for the marker of permit
-- holders, once the holder's slot is taken (permit-take.sql): the row's lease is the longest lease
-- of the key's live slots, read from their rows, as word-take-holders.sql says for readers and a
-- writer. A lease counted from this statement's clock ended after the slot's on the databases that
-- read the clock anew for each statement, and the release of another holder, shrinking the row to
-- the longest lease left, notified waiters of a change no holder made. The row is free at once
-- when no slot's lease runs any more. It carries the newest token of the key.
UPDATE ${table} SET owner = :holder, fencing_token = :token,
	expires_at = COALESCE(
		(SELECT MAX(p.expires_at) FROM ${table}_p p WHERE p.lock_key = :key AND p.expires_at > statement_timestamp()),
		statement_timestamp()),
	acquired_at = statement_timestamp()
WHERE lock_key = :key
