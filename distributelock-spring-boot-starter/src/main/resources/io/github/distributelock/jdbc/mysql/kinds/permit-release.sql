-- Gives a permit back: the first statement counts only a holder whose lease still ran, the
-- second deletes a slot of this owner whose lease had run out.
DELETE FROM ${table}_p WHERE lock_key = :key AND owner = :owner AND expires_at > UTC_TIMESTAMP(6);
DELETE FROM ${table}_p WHERE lock_key = :key AND owner = :owner;
