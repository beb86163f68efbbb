-- How many locks of the table are held now (their leases still run), for the check made
-- when a sharded lock table records its first shard list.
SELECT COUNT(*) AS live FROM ${table} WHERE expires_at > UTC_TIMESTAMP(6)
