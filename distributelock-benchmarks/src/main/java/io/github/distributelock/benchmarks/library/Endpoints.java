package io.github.distributelock.benchmarks.library;

import java.util.Map;

/**
 * Where the servers of one run listen, handed to forked JVMs as system properties so that
 * every measurement of the run talks to the same servers.
 *
 * @param redisPort the port of redis-server on 127.0.0.1
 * @param zooKeeperConnect the connect string of ZooKeeper
 * @param postgresPort the port of PostgreSQL on 127.0.0.1
 */
public record Endpoints(int redisPort, String zooKeeperConnect, int postgresPort) {

	private static final String REDIS = "bench.redis.port";

	private static final String ZOOKEEPER = "bench.zookeeper.connect";

	private static final String POSTGRES = "bench.postgres.port";

	public String jdbcUrl() {
		return "jdbc:postgresql://127.0.0.1:" + this.postgresPort + "/postgres";
	}

	public Map<String, String> asProperties() {
		return Map.of(REDIS, Integer.toString(this.redisPort), ZOOKEEPER, this.zooKeeperConnect, POSTGRES,
				Integer.toString(this.postgresPort));
	}

	public String[] asJvmArgs() {
		return asProperties().entrySet()
			.stream()
			.map((entry) -> "-D" + entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
	}

	public static Endpoints fromSystemProperties() {
		String redis = System.getProperty(REDIS);
		String zooKeeper = System.getProperty(ZOOKEEPER);
		String postgres = System.getProperty(POSTGRES);
		if (redis == null || zooKeeper == null || postgres == null) {
			throw new IllegalStateException("Run the benchmarks through BenchmarkMain, which starts the servers and "
					+ "passes -D" + REDIS + ", -D" + ZOOKEEPER + " and -D" + POSTGRES);
		}
		return new Endpoints(Integer.parseInt(redis), zooKeeper, Integer.parseInt(postgres));
	}

}
