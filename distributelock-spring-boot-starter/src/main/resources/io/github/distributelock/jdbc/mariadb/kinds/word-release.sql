-- A fair holder releases the key's row as a plain holder does: the row stays, free, and counts
-- only when this owner held it with its lease still running.
UPDATE ${table} SET expires_at = UTC_TIMESTAMP(6)
WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6)
