-- After a permit holder left or renewed: the key's row, held by the permit marker, lasts as long as the
-- longest lease of the holders left, or is free at once when none is left.
UPDATE ${table} SET expires_at = COALESCE(
	(SELECT MAX(p.expires_at) FROM ${table}_p p WHERE p.lock_key = :key AND p.expires_at > statement_timestamp()),
	statement_timestamp())
WHERE lock_key = :key AND owner = :holder AND expires_at > statement_timestamp()
