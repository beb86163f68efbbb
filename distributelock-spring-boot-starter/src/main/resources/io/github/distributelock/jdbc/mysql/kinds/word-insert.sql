-- Fair, read/write and permit locks: the first statement of an attempt. Makes sure the key has
-- its row in the lock table, the row that every kind of lock of the key takes or joins, and
-- locks it exclusively (an ON DUPLICATE KEY UPDATE locks the row it finds, where INSERT IGNORE
-- would take a shared lock that two attempts could not both upgrade). A row inserted here is
-- free (its lease ends now, its owner is empty, its token 0): it changes nothing for a plain
-- attempt, which takes a free row over as it takes a released one. Changes nothing where the
-- row exists.
INSERT INTO ${table} (lock_key, owner, fencing_token, expires_at, acquired_at)
VALUES (:key, '', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE lock_key = lock_key
