package io.github.distributelock.jdbc;

import java.util.List;

/**
 * Thrown when two shards of a sharded lock table are one database (the same JDBC URL and
 * user, as the driver reports them) and so would share one lock table: the database's
 * record of the shard list can hold only one of their places, and the check of the list
 * would then fail with a misleading message.
 *
 * @since 1.0.0
 */
public class LockShardsShareDatabaseException extends IllegalArgumentException {

	private final List<String> shards;

	/**
	 * Creates an exception.
	 * @param message which shards share a database
	 * @param shards the names of the shards that share it
	 */
	public LockShardsShareDatabaseException(String message, List<String> shards) {
		super(message);
		this.shards = List.copyOf(shards);
	}

	/**
	 * The names of the shards that share one database.
	 * @return the shard names, in their order in the list
	 */
	public List<String> getShards() {
		return this.shards;
	}

}
