-- Frees this owner's lock and keeps its row, so that the next acquisition of the key takes
-- the row over under its row lock and draws its fencing token only then; with the row
-- deleted, a statement that drew its token before this holder's could insert it later.
-- purge.sql deletes rows free for longer than the retention. Counts the row only when its
-- lease was still running.
-- The owner is cleared as well, so that a renewal racing this release (the watchdog's, whose
-- clock may have been read before this statement's, or that waited for the row behind it) can
-- never find the row still its own and revive it for a whole lease: the lease alone would not tell.
-- Not to '' as on the other databases: MODE=Oracle stores '' as NULL, which the column refuses.
-- U+0001 alone is no caller's owner (owners starting with it are reserved) and no marker.
UPDATE ${table} SET expires_at = CURRENT_TIMESTAMP, owner = CHAR(1)
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
