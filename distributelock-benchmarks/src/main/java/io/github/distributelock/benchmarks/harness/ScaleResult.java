package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What one library left behind after its scale run.
 *
 * @param library the library
 * @param cycles lock/unlock cycles, each on a new key
 * @param seconds how long the cycles took, on 16 threads
 * @param redisKeys keys left in Redis
 * @param redisExpiring of those, keys that expire by themselves
 * @param znodes znodes left in ZooKeeper
 * @param rows rows left in the lock tables
 * @param retainedHeapBytes heap the JVM retained after the cycles, over its baseline
 */
public record ScaleResult(String library, long cycles, double seconds, long redisKeys, long redisExpiring, long znodes,
		long rows, long retainedHeapBytes) {

	/** What is left in this library's own store, for the page. */
	public String leftInStore() {
		return switch (Libraries.store(this.library)) {
			case "redis" -> String.format("%,d keys (%,d of them expire)", this.redisKeys, this.redisExpiring);
			case "zookeeper" -> String.format("%,d znodes", this.znodes);
			default -> String.format("%,d rows", this.rows);
		};
	}

	static ScaleResult read(String library, Path file) throws IOException {
		String[] values = Files.readString(file).trim().split(" ");
		return new ScaleResult(library, Long.parseLong(values[0]), Double.parseDouble(values[1]),
				Long.parseLong(values[2]), Long.parseLong(values[3]), Long.parseLong(values[4]),
				Long.parseLong(values[5]), Long.parseLong(values[6]));
	}

}
