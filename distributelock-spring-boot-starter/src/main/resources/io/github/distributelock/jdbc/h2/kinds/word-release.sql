-- A fair holder releases the key's row as a plain holder does: the row stays, free, and counts
-- only when this owner held it with its lease still running.
UPDATE ${table} SET expires_at = CURRENT_TIMESTAMP
WHERE lock_key = :key AND owner = :owner AND expires_at > CURRENT_TIMESTAMP
