-- A reader joins the key's row, held by the readers' marker, once its own row is recorded
-- (holder-insert.sql): the row's lease becomes the longest lease of the key's live readers, read
-- from their rows, as word-take-holders.sql says, and it carries the newest token.
UPDATE ${table} SET fencing_token = :token,
	expires_at = COALESCE(
		(SELECT MAX(h.expires_at) FROM ${table}_h h WHERE h.lock_key = :key AND h.expires_at > CURRENT_TIMESTAMP),
		CURRENT_TIMESTAMP)
WHERE lock_key = :key
