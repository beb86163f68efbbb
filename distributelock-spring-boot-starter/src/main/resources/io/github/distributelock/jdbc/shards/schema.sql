-- The record of the shard list in one database of a sharded lock table (every dialect):
-- one row, which shard of how many this database is, and the names of all shards in
-- order, so that a start with another list is refused while locks may be held under the
-- old one (keys would move to other databases). Safe to run again.
CREATE TABLE IF NOT EXISTS ${shards} (
	id INT NOT NULL PRIMARY KEY,
	shard_index INT NOT NULL,
	shard_count INT NOT NULL,
	shard_names VARCHAR(2000) NOT NULL
);
