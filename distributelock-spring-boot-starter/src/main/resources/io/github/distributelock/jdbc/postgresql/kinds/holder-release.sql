-- Releases a reader or writer: the first statement counts only a holder whose lease still ran,
-- the second deletes a row of this owner whose lease had run out.
DELETE FROM ${table}_h WHERE lock_key = :key AND owner = :owner AND expires_at > statement_timestamp();
DELETE FROM ${table}_h WHERE lock_key = :key AND owner = :owner;
