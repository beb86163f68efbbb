-- Fair, read/write and permit locks: the first statement of an attempt. Makes sure the key has
-- its row in the lock table, the row that every kind of lock of the key takes or joins, so that
-- the next statement can lock it. A row inserted here is free (its lease ends now, its owner is
-- empty, its token 0): it changes nothing for a plain attempt, which takes a free row over under
-- its row lock and draws its token then. Does nothing where the row exists (H2 has no ON
-- CONFLICT DO NOTHING: a MERGE without a WHEN MATCHED branch).
MERGE INTO ${table} AS held
USING (VALUES (CAST(:key AS VARCHAR))) AS word (lock_key)
ON held.lock_key = word.lock_key
WHEN NOT MATCHED THEN
	INSERT (lock_key, owner, fencing_token, expires_at, acquired_at)
	VALUES (word.lock_key, '', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
