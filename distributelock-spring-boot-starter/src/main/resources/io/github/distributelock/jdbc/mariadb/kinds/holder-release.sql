-- Releases a reader or writer: the first statement counts only a holder whose lease still ran,
-- the second deletes a row of this owner whose lease had run out.
DELETE FROM ${table}_h WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6);
DELETE FROM ${table}_h WHERE lock_key = :key AND owner = :owner;
