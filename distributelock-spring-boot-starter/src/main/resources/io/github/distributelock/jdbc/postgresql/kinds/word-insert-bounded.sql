-- word-insert.sql for a caller with less time left than the statement timeout: its VALUES first
-- sets lock_timeout (:lock_wait) until the end of the operation's transaction, so that every
-- wait for a row another transaction locks in this operation (the row lock of word-lock.sql
-- above all) ends with SQLSTATE 55P03 when the caller's time is up; the operation is then rolled
-- back and leaves nothing. The setting ends with the transaction (is_local = true).
INSERT INTO ${table} (lock_key, owner, fencing_token, expires_at, acquired_at)
VALUES (CASE WHEN set_config('lock_timeout', CAST(:lock_wait AS TEXT), true) IS NOT NULL THEN CAST(:key AS VARCHAR) END,
	'', 0, statement_timestamp(), statement_timestamp())
ON CONFLICT (lock_key) DO NOTHING
