-- Another permit holder joins the key's row, held by the permit marker, once its slot is taken
-- (permit-take.sql): the row's lease becomes the longest lease of the key's live slots, read from
-- their rows, as word-take-permits.sql says, and it carries the newest token.
UPDATE ${table} SET fencing_token = :token,
	expires_at = COALESCE(
		(SELECT MAX(p.expires_at) FROM ${table}_p p WHERE p.lock_key = :key AND p.expires_at > UTC_TIMESTAMP(6)),
		UTC_TIMESTAMP(6))
WHERE lock_key = :key
