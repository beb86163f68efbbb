-- Makes the next fencing token larger than :floor, the largest token drawn in any shard,
-- when a sharded lock table records a new shard list: a key that moves to this database
-- keeps getting larger tokens than it had in its old one. An explicit id moves the
-- AUTO_INCREMENT counter past it, and never back.
INSERT INTO ${sequence} (id) VALUES (:floor)
