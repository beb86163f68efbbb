package io.github.distributelock.jdbc;

import java.util.List;

/**
 * Thrown when a sharded lock table starts with another shard list than the one its
 * databases recorded (more or fewer shards, another order, another database), or with no
 * list recorded while its databases hold locks: keys would then live in other databases
 * than the ones the running instances lock them in, and two holders of one key could run
 * at once.
 *
 * @since 1.0.0
 */
public class LockShardsChangedException extends IllegalStateException {

	private final List<String> shards;

	private final String recorded;

	/**
	 * Creates an exception.
	 * @param message what differs
	 * @param shards the shard names the backend was built with, in order
	 * @param recorded the shard list the databases recorded, as the message names it
	 */
	public LockShardsChangedException(String message, List<String> shards, String recorded) {
		super(message);
		this.shards = List.copyOf(shards);
		this.recorded = recorded;
	}

	/**
	 * The shard names the backend was built with, in order.
	 * @return the shard names
	 */
	public List<String> getShards() {
		return this.shards;
	}

	/**
	 * The shard list the databases recorded, such as {@code [ds1, ds2]}, or {@code none}
	 * when they recorded none.
	 * @return the recorded list
	 */
	public String getRecorded() {
		return this.recorded;
	}

}
