-- The shard list recorded in this database; no row before the first start with shards.
SELECT shard_index, shard_count, shard_names FROM ${shards} WHERE id = 1
