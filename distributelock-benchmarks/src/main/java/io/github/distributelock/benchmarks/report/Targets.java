package io.github.distributelock.benchmarks.report;

import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import io.github.distributelock.benchmarks.harness.Libraries;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The targets of the benchmarks issue, checked against the figures of one run: at the
 * median, and in each round, pairing the libraries' figures of the same round. A target
 * holds only if it holds in every round.
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
		for (String ours : List.of(Libraries.REDIS_OURS_TRYLOCK, Libraries.REDIS_OURS_HANDLE)) {
			targets.latencyWithin(
					"Redis uncontended p50 within 1.10x of the Lettuce floor (" + Libraries.label(ours) + ")", ours,
					Libraries.REDIS_FLOOR, 1.10);
		}
		targets.beatsPeers("Redis uncontended p50 lower than Redisson's and Spring Integration's",
				Libraries.REDIS_OURS_HANDLE,
				List.of(Libraries.REDIS_REDISSON, Libraries.REDIS_SI_SPIN, Libraries.REDIS_SI_PUBSUB));
		targets.latencyWithin("@Lockable p50 within 1.05x of the direct call", Libraries.REDIS_OURS_LOCKABLE,
				Libraries.REDIS_OURS_HANDLE, 1.05);
		targets.lockableWithoutStore();
		targets.beatsPeers("ZooKeeper uncontended p50 lower than Curator InterProcessMutex", Libraries.ZK_OURS_HANDLE,
				List.of(Libraries.ZK_CURATOR));
		targets.beatsPeers("JDBC uncontended p50 lower than both JDBC peers", Libraries.JDBC_OURS_HANDLE,
				List.of(Libraries.JDBC_SI, Libraries.JDBC_SHEDLOCK));
		targets.contended(1, 3);
		targets.contended(2, 2.5);
		targets.contendedAgainst(
				"Contended Redis throughput at least the naive poll's (SET NX, 1 ms poll), 2 JVMs x 2 threads",
				Libraries.REDIS_OURS_HANDLE, Libraries.REDIS_FLOOR, 2, 1);
		targets.handOff(Libraries.REDIS_OURS_HANDLE, "Redis");
		targets.handOffUnder("Redis hand-off p50 under 0.3 ms on loopback, 2 JVMs x 2 threads",
				Libraries.REDIS_OURS_HANDLE, 2, 300);
		targets.handOff(Libraries.ZK_OURS_HANDLE, "ZooKeeper");
		for (int jvms = 1; jvms <= 2; jvms++) {
			targets.contendedAgainst(
					"Contended ZooKeeper throughput at least 1.2x Curator's InterProcessMutex "
							+ "(its threads on one shared session), " + shape(jvms),
					Libraries.ZK_OURS_HANDLE, Libraries.ZK_CURATOR, jvms, 1.2);
		}
		return targets.rows;
	}

	private void latencyWithin(String target, String library, String base, double limit) {
		Results.Latency latency = this.results.paired(library);
		Results.Latency floor = this.results.paired(base);
		if (latency == null || floor == null) {
			notMeasured(target, library);
			return;
		}
		double ratio = latency.p50 / floor.p50;
		List<String> figures = new ArrayList<>();
		List<Boolean> rounds = new ArrayList<>();
		for (int round : rounds(latency.rounds, floor.rounds)) {
			Results.Latency one = latency.rounds.get(round);
			Results.Latency other = floor.rounds.get(round);
			double roundRatio = (one != null && other != null) ? one.p50 / other.p50 : Double.NaN;
			figures.add(String.format("%.2fx", roundRatio));
			rounds.add(roundRatio <= limit);
		}
		add(target, String.format("%.0f us vs %.0f us: %.2fx", latency.p50, floor.p50, ratio) + perRound(figures),
				new Verdict(ratio <= limit, rounds));
	}

	private void lockableWithoutStore() {
		Results.Latency direct = this.results.paired(Libraries.REDIS_OURS_HANDLE);
		Results.Latency memoryDirect = this.results.paired(Libraries.MEMORY_OURS_HANDLE);
		Results.Latency memoryAnnotated = this.results.paired(Libraries.MEMORY_OURS_LOCKABLE);
		String target = "@Lockable's own cost, without a store (in-memory backend), added to the direct call on Redis";
		if (direct == null || memoryDirect == null || memoryAnnotated == null) {
			notMeasured(target, Libraries.MEMORY_OURS_LOCKABLE);
			return;
		}
		BiFunction<Results.Latency, Results.Latency, Double> onRedis = (annotated,
				plain) -> (direct.p50 + annotated.p50 - plain.p50) / direct.p50;
		double ratio = onRedis.apply(memoryAnnotated, memoryDirect);
		List<String> figures = new ArrayList<>();
		List<Boolean> rounds = new ArrayList<>();
		for (int round : rounds(memoryAnnotated.rounds, memoryDirect.rounds)) {
			Results.Latency annotated = memoryAnnotated.rounds.get(round);
			Results.Latency plain = memoryDirect.rounds.get(round);
			double roundRatio = (annotated != null && plain != null) ? onRedis.apply(annotated, plain) : Double.NaN;
			figures.add(String.format("%.3fx", roundRatio));
			rounds.add(roundRatio <= 1.05);
		}
		add(target,
				String.format("+%.2f us at p50 (%.2f vs %.2f us): %.3fx of the Redis direct call",
						memoryAnnotated.p50 - memoryDirect.p50, memoryAnnotated.p50, memoryDirect.p50, ratio)
						+ perRound(figures),
				new Verdict(ratio <= 1.05, rounds));
	}

	private void beatsPeers(String target, String ours, List<String> peers) {
		Results.Latency latency = this.results.paired(ours);
		if (latency == null) {
			notMeasured(target, ours);
			return;
		}
		StringBuilder measured = new StringBuilder(String.format("ours %.0f us", latency.p50));
		boolean median = true;
		TreeSet<Integer> roundNumbers = new TreeSet<>(latency.rounds.keySet());
		List<Results.Latency> others = new ArrayList<>();
		for (String peer : peers) {
			Results.Latency other = this.results.paired(peer);
			if (other != null) {
				measured.append(String.format("; %s %.0f us", Libraries.label(peer), other.p50));
				median &= latency.p50 < other.p50;
				roundNumbers.addAll(other.rounds.keySet());
				others.add(other);
			}
		}
		if (others.isEmpty()) {
			notMeasured(target, String.join(" and ", peers));
			return;
		}
		List<Boolean> rounds = new ArrayList<>();
		List<String> figures = new ArrayList<>();
		for (int round : roundNumbers) {
			Results.Latency one = latency.rounds.get(round);
			Predicate<Results.Latency> beaten = (other) -> one != null && other.rounds.get(round) != null
					&& one.p50 < other.rounds.get(round).p50;
			boolean met = others.stream().allMatch(beaten);
			rounds.add(met);
			figures.add(met ? "lower" : "not lower");
		}
		add(target, measured + perRound(figures), new Verdict(median, rounds));
	}

	private void contended(int jvms, double factor) {
		contendedAgainst(
				String.format("Contended Redis throughput at least %sx Redisson's, %s",
						new DecimalFormat("0.#").format(factor), shape(jvms)),
				Libraries.REDIS_OURS_HANDLE, Libraries.REDIS_REDISSON, jvms, factor);
	}

	private static String shape(int jvms) {
		return (jvms == 1) ? "4 threads in 1 JVM" : "2 JVMs x 2 threads";
	}

	private void contendedAgainst(String target, String library, String base, int jvms, double factor) {
		JsonNode ours = this.results.contended(library, jvms);
		JsonNode baseline = this.results.contended(base, jvms);
		if (ours == null || baseline == null) {
			notMeasured(target, (ours == null) ? library : base);
			return;
		}
		double ratio = Results.number(ours.path("acquisitionsPerSecond"))
				/ Results.number(baseline.path("acquisitionsPerSecond"));
		Map<Integer, JsonNode> ourRounds = Results.rounds(ours);
		Map<Integer, JsonNode> theirRounds = Results.rounds(baseline);
		List<String> figures = new ArrayList<>();
		List<Boolean> rounds = new ArrayList<>();
		for (int round : rounds(ourRounds, theirRounds)) {
			double roundRatio = throughput(ourRounds.get(round)) / throughput(theirRounds.get(round));
			figures.add(String.format("%.2fx", roundRatio));
			rounds.add(roundRatio >= factor);
		}
		add(target,
				String.format("%.0f/s vs %.0f/s: %.2fx (medians)", Results.number(ours.path("acquisitionsPerSecond")),
						Results.number(baseline.path("acquisitionsPerSecond")), ratio) + perRound(figures),
				new Verdict(ratio >= factor, rounds));
	}

	private void handOff(String ours, String store) {
		String target = "Hand-off p50 under 2 ms on loopback, " + store;
		List<String> measured = new ArrayList<>();
		boolean median = true;
		Map<Integer, Boolean> rounds = new TreeMap<>();
		for (int jvms = 1; jvms <= 2; jvms++) {
			JsonNode result = this.results.contended(ours, jvms);
			if (result == null) {
				continue;
			}
			double p50 = Results.number(result.path("handOffP50Micros"));
			List<String> figures = new ArrayList<>();
			for (Map.Entry<Integer, JsonNode> round : Results.rounds(result).entrySet()) {
				double roundP50 = Results.number(round.getValue().path("handOffP50Micros"));
				figures.add(String.format("%.2f", roundP50 / 1000));
				rounds.merge(round.getKey(), roundP50 < 2000, Boolean::logicalAnd);
			}
			measured.add(String.format("%s: %.2f ms", (jvms == 1) ? "1x4" : "2x2", p50 / 1000) + perRound(figures));
			median &= p50 < 2000;
		}
		if (measured.isEmpty()) {
			notMeasured(target, ours);
			return;
		}
		add(target, String.join("; ", measured), new Verdict(median, List.copyOf(rounds.values())));
	}

	private void handOffUnder(String target, String library, int jvms, double micros) {
		JsonNode result = this.results.contended(library, jvms);
		if (result == null) {
			notMeasured(target, library);
			return;
		}
		double p50 = Results.number(result.path("handOffP50Micros"));
		List<String> figures = new ArrayList<>();
		List<Boolean> rounds = new ArrayList<>();
		for (JsonNode round : Results.rounds(result).values()) {
			double roundP50 = Results.number(round.path("handOffP50Micros"));
			figures.add(String.format("%.2f", roundP50 / 1000));
			rounds.add(roundP50 < micros);
		}
		add(target, String.format("%.2f ms", p50 / 1000) + perRound(figures), new Verdict(p50 < micros, rounds));
	}

	private static TreeSet<Integer> rounds(Map<Integer, ?> one, Map<Integer, ?> other) {
		TreeSet<Integer> rounds = new TreeSet<>(one.keySet());
		rounds.addAll(other.keySet());
		return rounds;
	}

	private static double throughput(@Nullable JsonNode round) {
		return (round != null) ? Results.number(round.path("acquisitionsPerSecond")) : Double.NaN;
	}

	private static String perRound(List<String> figures) {
		return figures.isEmpty() ? "" : " (rounds: " + String.join(", ", figures) + ")";
	}

	private void notMeasured(String target, String library) {
		this.rows.add(new String[] { target, "not measured: " + library + " was not in this run", "**not measured**" });
	}

	private void add(String target, String measured, Verdict verdict) {
		this.rows.add(new String[] { target, measured, verdict.text() });
	}

}
