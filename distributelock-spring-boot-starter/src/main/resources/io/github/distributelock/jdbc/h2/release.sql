-- Deletes this owner's row; returns whether its lease was still running.
SELECT expires_at > CURRENT_TIMESTAMP AS live
FROM OLD TABLE (DELETE FROM ${table} WHERE lock_key = :key AND owner = :owner)
