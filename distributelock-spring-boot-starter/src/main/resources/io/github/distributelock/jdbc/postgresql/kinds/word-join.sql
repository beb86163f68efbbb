-- Another permit holder joins the key's row, held by their marker: the row's lease
-- becomes the longest of its holders' (it never shrinks here), and it carries the newest token.
UPDATE ${table} SET fencing_token = :token,
	expires_at = GREATEST(expires_at, statement_timestamp() + CAST(:lease_ms AS BIGINT) * INTERVAL '1 millisecond')
WHERE lock_key = :key
