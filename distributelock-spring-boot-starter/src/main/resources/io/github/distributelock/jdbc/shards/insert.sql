-- Records the shard list in this database at the first start with shards; fails on the
-- primary key if another instance recorded it meanwhile (then it is read again).
INSERT INTO ${shards} (id, shard_index, shard_count, shard_names) VALUES (1, :index, :count, :names)
