-- After a reader or the writer left or renewed: the key's row, held by their marker, lasts as long as the
-- longest lease of the holders left, or is free at once when none is left, so that a writer or a
-- plain caller waits for no lease of a holder that is gone.
UPDATE ${table} SET expires_at = COALESCE(
	(SELECT MAX(h.expires_at) FROM ${table}_h h WHERE h.lock_key = :key AND h.expires_at > CURRENT_TIMESTAMP),
	CURRENT_TIMESTAMP)
WHERE lock_key = :key AND owner = :holder AND expires_at > CURRENT_TIMESTAMP
