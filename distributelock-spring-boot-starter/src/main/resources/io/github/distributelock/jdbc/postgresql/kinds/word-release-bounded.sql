-- word-release.sql as the first statement of a bounded release of a fair waiter: see
-- word-lock-bounded.sql.
UPDATE ${table} SET expires_at = statement_timestamp(), owner = ''
WHERE lock_key = (SELECT CAST(:key AS VARCHAR) WHERE set_config('lock_timeout', CAST(:lock_wait AS TEXT), true) IS NOT NULL) AND owner = :owner AND expires_at > statement_timestamp()
