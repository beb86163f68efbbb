-- Locks the key's row of the lock table until the end of this operation's transaction. Every
-- operation of a fair, read/write or permit lock begins here, and every plain statement of the
-- key (acquire, renew, release) locks the same row, so the operations of one key run one after
-- the other and each sees what the one before it committed: the queue, the holders and the
-- permit slots of the key are only ever changed under this lock. The tables of a key are always
-- locked in this order (the lock table's row first), so two operations never wait for each other
-- in a cycle. It reads when the row's lease ends, so that a release that shortens it can notify.
SELECT lock_key, expires_at FROM ${table} WHERE lock_key = :key FOR UPDATE
