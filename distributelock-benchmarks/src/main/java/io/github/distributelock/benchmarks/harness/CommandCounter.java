package io.github.distributelock.benchmarks.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.store.CountingDataSource;
import io.github.distributelock.benchmarks.store.RedisMonitor;
import io.github.distributelock.benchmarks.store.ZooKeeperStats;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Counts what one uncontended lock and unlock costs each library at its store, over many
 * cycles on one thread: Redis commands from {@code INFO commandstats}, split by
 * {@code MONITOR} into those the client sent and those its scripts ran; ZooKeeper
 * requests and fsyncs from the server's {@code mntr}; SQL statements and commits through
 * a counting {@code DataSource}.
 */
public final class CommandCounter {

	private static final Log logger = LogFactory.getLog(CommandCounter.class);

	/** Commands of the counting itself, not of the library. */
	private static final Set<String> OWN_COMMANDS = Set.of("info", "echo", "monitor");

	private static final int WARMUP_CYCLES = 100;

	private final Endpoints endpoints;

	private final int cycles;

	public CommandCounter(Endpoints endpoints, int cycles) {
		this.endpoints = endpoints;
		this.cycles = cycles;
	}

	public List<CommandCount> run(List<String> libraries) throws Exception {
		List<CommandCount> counts = new ArrayList<>();
		RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", this.endpoints.redisPort()));
		try (StatefulRedisConnection<String, String> redis = client.connect();
				RedisMonitor monitor = new RedisMonitor(this.endpoints.redisPort())) {
			for (String library : libraries) {
				if (Libraries.store(library).equals("memory")) {
					continue;
				}
				logger.info("Counting store commands: " + library);
				try {
					counts.add(switch (Libraries.store(library)) {
						case "redis" -> countRedis(library, redis, monitor);
						case "zookeeper" -> countZooKeeper(library);
						default -> countJdbc(library);
					});
				}
				catch (Exception ex) {
					logger.warn("Could not count the commands of " + library + ": " + ex);
				}
			}
		}
		finally {
			client.shutdown();
		}
		return counts;
	}

	private CommandCount countRedis(String library, StatefulRedisConnection<String, String> redis, RedisMonitor monitor)
			throws Exception {
		try (LockLibrary lock = Libraries.create(library, this.endpoints)) {
			cycle(lock, library);
			Map<String, Long> before = commandStats(redis, "calls=");
			Map<String, Long> usecBefore = commandStats(redis, "usec=");
			monitor.start();
			long start = System.nanoTime();
			for (int i = 0; i < this.cycles; i++) {
				lock.lockAndUnlock("count." + library);
			}
			double micros = (System.nanoTime() - start) / 1e3 / this.cycles;
			Map<String, Long> after = commandStats(redis, "calls=");
			Map<String, Long> usecAfter = commandStats(redis, "usec=");
			String marker = "bench-marker-" + library;
			RedisMonitor.Counts seen = monitor.stop(marker, () -> redis.sync().echo(marker));
			long all = 0;
			for (Map.Entry<String, Long> entry : after.entrySet()) {
				if (!OWN_COMMANDS.contains(entry.getKey())) {
					all += entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
				}
			}
			// Server time of what the client sent: a script's time includes its commands.
			long usec = 0;
			for (String command : seen.client().keySet()) {
				usec += usecAfter.getOrDefault(command, 0L) - usecBefore.getOrDefault(command, 0L);
			}
			long sent = seen.client().values().stream().mapToLong(Long::longValue).sum();
			long scripted = seen.script().values().stream().mapToLong(Long::longValue).sum();
			String detail = perCycle(seen.client())
					+ (seen.script().isEmpty() ? "" : "; in scripts: " + perCycle(seen.script()));
			return new CommandCount(library, (double) sent / this.cycles, (double) scripted / this.cycles,
					(double) all / this.cycles, Double.NaN, (double) usec / this.cycles, detail, micros);
		}
	}

	private CommandCount countZooKeeper(String library) throws Exception {
		try (LockLibrary lock = Libraries.create(library, this.endpoints)) {
			cycle(lock, library);
			Map<String, Long> before = ZooKeeperStats.read(this.endpoints.zooKeeperConnect());
			long start = System.nanoTime();
			for (int i = 0; i < this.cycles; i++) {
				lock.lockAndUnlock("count." + library);
			}
			double micros = (System.nanoTime() - start) / 1e3 / this.cycles;
			Map<String, Long> after = ZooKeeperStats.read(this.endpoints.zooKeeperConnect());
			double requests = delta(before, after, "zk_packets_received");
			double fsyncs = delta(before, after, "zk_cnt_fsynctime");
			return new CommandCount(library, requests, 0, requests, fsyncs, Double.NaN,
					"requests received by the server (mntr zk_packets_received)", micros);
		}
	}

	private CommandCount countJdbc(String library) throws Exception {
		CountingDataSource counting = new CountingDataSource();
		try (LockLibrary lock = Libraries.create(library, this.endpoints, counting::wrap)) {
			cycle(lock, library);
			long statements = counting.statements();
			long commits = counting.commits();
			long start = System.nanoTime();
			for (int i = 0; i < this.cycles; i++) {
				lock.lockAndUnlock("count." + library);
			}
			double micros = (System.nanoTime() - start) / 1e3 / this.cycles;
			double executed = (double) (counting.statements() - statements) / this.cycles;
			double committed = (double) (counting.commits() - commits) / this.cycles;
			return new CommandCount(library, executed + committed, 0, executed + committed, Double.NaN, Double.NaN,
					String.format("%.2f statements + %.2f explicit commits/rollbacks", executed, committed), micros);
		}
	}

	private double delta(Map<String, Long> before, Map<String, Long> after, String name) {
		if (!after.containsKey(name)) {
			return Double.NaN;
		}
		return (double) (after.get(name) - before.getOrDefault(name, 0L)) / this.cycles;
	}

	private static void cycle(LockLibrary lock, String library) throws Exception {
		for (int i = 0; i < WARMUP_CYCLES; i++) {
			lock.lockAndUnlock("count." + library);
		}
	}

	private String perCycle(Map<String, Long> commands) {
		return commands.entrySet()
			.stream()
			.filter((entry) -> !OWN_COMMANDS.contains(entry.getKey()))
			.map((entry) -> entry.getKey().toUpperCase() + " "
					+ String.format("%.2f", (double) entry.getValue() / this.cycles).replaceAll("\\.?0+$", ""))
			.collect(Collectors.joining(", "));
	}

	/** One field of every command's line of {@code INFO commandstats}. */
	static Map<String, Long> commandStats(StatefulRedisConnection<String, String> redis, String field) {
		Map<String, Long> calls = new HashMap<>();
		for (String line : redis.sync().info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				for (String pair : line.substring(line.indexOf(':') + 1).split(",")) {
					if (pair.startsWith(field)) {
						calls.put(name, Long.parseLong(pair.substring(field.length())));
					}
				}
			}
		}
		return calls;
	}

}
