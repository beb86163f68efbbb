package io.github.distributelock.core;

import java.util.Map;

/**
 * A {@link LockBackend} that spreads its keys over several stores, its shards, each key
 * in one of them. A capability for operations tooling: metrics and the held-locks
 * endpoint name the shard of each lock, and the health check probes each shard on its
 * own. The engine does not use it.
 *
 * @since 1.0.0
 */
public interface ShardedLockBackend {

	/**
	 * The shard that holds a key.
	 * @param key the lock key as the caller gave it
	 * @return the shard's name
	 */
	String shardOf(String key);

	/**
	 * Each shard's probe, by the shard's name, in the order of the shards.
	 * @return the probes
	 */
	Map<String, LockStoreProbe> shardProbes();

}
