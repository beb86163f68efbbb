-- Makes the next fencing token larger than :floor, the largest token drawn in any shard,
-- when a sharded lock table records a new shard list: a key that moves to this database
-- keeps getting larger tokens than it had in its old one. An explicit id moves the
-- AUTO_INCREMENT counter past it, and never back; the row of an id that is there already
-- (another instance starting with the same list raised the counter to it) is kept.
INSERT INTO ${sequence} (id) VALUES (:floor) ON DUPLICATE KEY UPDATE id = id
