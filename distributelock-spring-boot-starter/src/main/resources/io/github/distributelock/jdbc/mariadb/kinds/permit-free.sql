-- Deletes one slot of the key before a permit attempt takes its slot: this owner's earlier slot,
-- or the slot to take when the lease of its holder ran out. By the whole primary key, so that
-- on MariaDB and MySQL it locks that row only: a delete by owner locked the gaps beside the
-- key's slots too, and attempts on neighbouring keys inserting there deadlocked each other.
DELETE FROM ${table}_p
WHERE lock_key = :key AND slot = :free_slot AND (owner = :owner OR expires_at <= UTC_TIMESTAMP(6))
