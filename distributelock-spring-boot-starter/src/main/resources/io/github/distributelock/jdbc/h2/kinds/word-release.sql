-- A fair holder releases the key's row: the row stays, free, and counts only when this owner
-- held it with its lease still running. The owner is cleared as well, so that a renewal racing
-- this release (the watchdog's, whose clock may have been read before this statement's) can
-- never find the row still its own and revive it: the lease alone would not tell.
UPDATE ${table} SET expires_at = CURRENT_TIMESTAMP, owner = ''
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
