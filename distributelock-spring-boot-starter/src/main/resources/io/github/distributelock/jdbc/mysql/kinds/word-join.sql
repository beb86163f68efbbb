-- Another permit holder joins the key's row, held by their marker: the row's lease
-- becomes the longest of its holders' (it never shrinks here), and it carries the newest token.
UPDATE ${table} SET fencing_token = :token,
	expires_at = GREATEST(expires_at, UTC_TIMESTAMP(6) + INTERVAL (:lease_ms * 1000) MICROSECOND)
WHERE lock_key = :key
