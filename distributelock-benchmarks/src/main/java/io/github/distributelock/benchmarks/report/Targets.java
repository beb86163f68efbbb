package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.benchmarks.harness.Libraries;
import tools.jackson.databind.JsonNode;

/**
 * The targets of the benchmarks issue, checked against the ratios of one run.
 */
final class Targets {

	private final Results results;

	private final List<String[]> rows = new ArrayList<>();

	private Targets(Results results) {
		this.results = results;
	}

	/** Rows of target, measured, verdict. */
	static List<String[]> check(Results results) {
		Targets targets = new Targets(results);
		targets.redisUncontended();
		targets.lockable();
		targets.beatsPeers("ZooKeeper uncontended p50 lower than Curator InterProcessMutex", "zookeeper-ours-handle",
				List.of(Libraries.ZK_CURATOR));
		targets.beatsPeers("JDBC uncontended p50 lower than both JDBC peers", "jdbc-ours-handle",
				List.of(Libraries.JDBC_SI, Libraries.JDBC_SHEDLOCK));
		targets.contended(1, 3);
		targets.contended(2, 2);
		targets.handOff(Libraries.REDIS_OURS_HANDLE, "Redis");
		targets.handOff("zookeeper-ours-handle", "ZooKeeper");
		return targets.rows;
	}

	private void redisUncontended() {
		Results.Latency floor = this.results.paired(Libraries.REDIS_FLOOR);
		for (String ours : List.of(Libraries.REDIS_OURS_TRYLOCK, Libraries.REDIS_OURS_HANDLE)) {
			Results.Latency latency = this.results.paired(ours);
			String target = "Redis uncontended p50 within 1.10x of the Lettuce floor (" + Libraries.label(ours) + ")";
			if (floor == null || latency == null) {
				notMeasured(target, ours);
				continue;
			}
			double ratio = latency.p50 / floor.p50;
			add(target, String.format("%.0f us vs %.0f us: %.2fx", latency.p50, floor.p50, ratio), ratio <= 1.10);
		}
		beatsPeers("Redis uncontended p50 lower than Redisson's and Spring Integration's", Libraries.REDIS_OURS_HANDLE,
				List.of(Libraries.REDIS_REDISSON, Libraries.REDIS_SI_SPIN, Libraries.REDIS_SI_PUBSUB));
	}

	private void lockable() {
		Results.Latency direct = this.results.paired(Libraries.REDIS_OURS_HANDLE);
		Results.Latency annotated = this.results.paired(Libraries.REDIS_OURS_LOCKABLE);
		String target = "@Lockable p50 within 1.05x of the direct call";
		if (direct == null || annotated == null) {
			notMeasured(target, Libraries.REDIS_OURS_LOCKABLE);
			return;
		}
		double ratio = annotated.p50 / direct.p50;
		add(target, String.format("%.0f us vs %.0f us: %.3fx", annotated.p50, direct.p50, ratio), ratio <= 1.05);
		Results.Latency memoryDirect = this.results.paired(Libraries.MEMORY_OURS_HANDLE);
		Results.Latency memoryAnnotated = this.results.paired(Libraries.MEMORY_OURS_LOCKABLE);
		if (memoryDirect != null && memoryAnnotated != null) {
			double overhead = memoryAnnotated.p50 - memoryDirect.p50;
			double ratioOnRedis = (direct.p50 + overhead) / direct.p50;
			add("@Lockable's own cost, without a store (in-memory backend), added to the direct call on Redis",
					String.format("+%.2f us at p50 (%.2f vs %.2f us): %.3fx of the Redis direct call", overhead,
							memoryAnnotated.p50, memoryDirect.p50, ratioOnRedis),
					ratioOnRedis <= 1.05);
		}
	}

	private void beatsPeers(String target, String ours, List<String> peers) {
		Results.Latency latency = this.results.paired(ours);
		if (latency == null) {
			notMeasured(target, ours);
			return;
		}
		StringBuilder measured = new StringBuilder(String.format("ours %.0f us", latency.p50));
		boolean met = true;
		for (String peer : peers) {
			Results.Latency other = this.results.paired(peer);
			if (other != null) {
				measured.append(String.format("; %s %.0f us", Libraries.label(peer), other.p50));
				met &= latency.p50 < other.p50;
			}
		}
		add(target, measured.toString(), met);
	}

	private void contended(int jvms, double factor) {
		String target = String.format("Contended Redis throughput at least %.0fx Redisson's, %s", factor,
				(jvms == 1) ? "4 threads in 1 JVM" : "2 JVMs x 2 threads");
		JsonNode ours = this.results.contended(Libraries.REDIS_OURS_HANDLE, jvms);
		JsonNode redisson = this.results.contended(Libraries.REDIS_REDISSON, jvms);
		if (ours == null || redisson == null) {
			notMeasured(target, Libraries.REDIS_OURS_HANDLE);
			return;
		}
		double ratio = Results.number(ours.path("acquisitionsPerSecond"))
				/ Results.number(redisson.path("acquisitionsPerSecond"));
		add(target,
				String.format("%.0f/s vs %.0f/s: %.2fx (medians of %d rounds; ours %.0f–%.0f/s, Redisson %.0f–%.0f/s)",
						Results.number(ours.path("acquisitionsPerSecond")),
						Results.number(redisson.path("acquisitionsPerSecond")), ratio, ours.path("rounds").asInt(),
						Results.number(ours.path("lowestPerSecond")), Results.number(ours.path("highestPerSecond")),
						Results.number(redisson.path("lowestPerSecond")),
						Results.number(redisson.path("highestPerSecond"))),
				ratio >= factor);
	}

	private void handOff(String ours, String store) {
		String target = "Hand-off p50 under 2 ms on loopback, " + store;
		List<String> measured = new ArrayList<>();
		boolean met = true;
		for (int jvms = 1; jvms <= 2; jvms++) {
			JsonNode result = this.results.contended(ours, jvms);
			if (result != null) {
				double p50 = Results.number(result.path("handOffP50Micros"));
				measured.add(String.format("%s: %.2f ms", (jvms == 1) ? "1x4" : "2x2", p50 / 1000));
				met &= p50 < 2000;
			}
		}
		if (measured.isEmpty()) {
			notMeasured(target, ours);
			return;
		}
		add(target, String.join("; ", measured), met);
	}

	private void notMeasured(String target, String library) {
		this.rows
			.add(new String[] { target, "not measured: " + library + " is not in this build", "**not measured**" });
	}

	private void add(String target, String measured, boolean met) {
		this.rows.add(new String[] { target, measured, met ? "met" : "**missed**" });
	}

}
