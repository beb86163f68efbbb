-- Takes the key's row of the lock table, found free under its row lock, for the marker of readers
-- or a writer, once the reader's or writer's own row is recorded (holder-insert.sql): the row's
-- lease is the longest lease of the key's live readers and writer, read from their rows, rather
-- than one counted from this statement's clock. PostgreSQL, MariaDB and MySQL read the clock anew
-- for each statement: counted here, the row's lease would end after the holder's, and the release
-- of another reader would shrink it to the longest lease left and notify waiters of a change no
-- holder made; counted before the holder's row was written, it ended first, and a client stalled
-- between the two writes left the key free while its holder's row ran. The row is free at once
-- when no holder's lease runs any more (the client stalled there for longer than the lease). It
-- carries the newest token of the key.
UPDATE ${table} SET owner = :holder, fencing_token = :token,
	expires_at = COALESCE(
		(SELECT MAX(h.expires_at) FROM ${table}_h h WHERE h.lock_key = :key AND h.expires_at > UTC_TIMESTAMP(6)),
		UTC_TIMESTAMP(6)),
	acquired_at = UTC_TIMESTAMP(6)
WHERE lock_key = :key
