-- Frees this owner's lock and keeps its row, so that the next acquisition of the key takes
-- the row over, which needs a token larger than the row's; with the row deleted, an attempt
-- that drew its token before this holder's could insert it later. purge.sql deletes rows free
-- for longer than the retention. Counts the row only when its lease was still running
-- (whether the driver reports matched or changed rows).
UPDATE ${table} SET expires_at = UTC_TIMESTAMP(6)
WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6)
