-- Deletes this owner's row; returns whether its lease was still running.
DELETE FROM ${table} WHERE lock_key = :key AND owner = :owner
RETURNING expires_at > CURRENT_TIMESTAMP AS live
