-- Records a new shard list in this database: accepted once the locks were drained, or
-- the same list with shards renamed.
UPDATE ${shards} SET shard_index = :index, shard_count = :count, shard_names = :names WHERE id = 1
