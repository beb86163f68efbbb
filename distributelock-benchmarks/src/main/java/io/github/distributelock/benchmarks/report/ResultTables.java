package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.distributelock.benchmarks.harness.Libraries;
import io.github.distributelock.benchmarks.harness.ScaleResult;
import tools.jackson.databind.JsonNode;

/**
 * The tables of the page's figures, one section per part of the run, every round shown
 * where the part ran in rounds.
 */
final class ResultTables {

	private static final List<String> STORES = List.of("redis", "zookeeper", "jdbc", "memory");

	private final Results results;

	private final Markdown page;

	ResultTables(Results results, Markdown page) {
		this.results = results;
		this.page = page;
	}

	void uncontended(String chart) {
		this.page.line("## Uncontended lock + unlock, one thread");
		this.page.line();
		this.page.line("JMH, one key, lock then unlock in a loop. Ratios are against the floor of the same store in "
				+ "the same run (lower is better for latency, higher for throughput). JMH measures one library after "
				+ "the other, minutes apart: the targets are judged on the interleaved run below.");
		this.page.line();
		this.page.line("![uncontended p50 and contended acquisitions per second](" + chart + ")");
		this.page.line();
		for (String store : STORES) {
			Results.Latency floor = this.results.latency(store + "-floor");
			List<String[]> rows = new ArrayList<>();
			for (Map.Entry<String, Results.Latency> entry : this.results.uncontended.entrySet()) {
				if (!Libraries.store(entry.getKey()).equals(store)) {
					continue;
				}
				Results.Latency latency = entry.getValue();
				rows.add(new String[] { Libraries.label(entry.getKey()), Markdown.code(entry.getKey()),
						Markdown.micros(latency.p50),
						Markdown.ratio(latency.p50, (floor != null) ? floor.p50 : Double.NaN),
						Markdown.micros(latency.p99),
						Markdown.ratio(latency.p99, (floor != null) ? floor.p99 : Double.NaN),
						Markdown.perSecond(latency.opsPerSecond),
						Markdown.ratio(latency.opsPerSecond, (floor != null) ? floor.opsPerSecond : Double.NaN) });
			}
			if (!rows.isEmpty()) {
				this.page.line("**" + storeName(store) + "**");
				this.page.line();
				this.page.table(
						List.of("library", "name", "p50 µs", "x floor", "p99 µs", "x floor", "ops/s", "x floor"), rows);
			}
		}
	}

	void interleaved() {
		if (this.results.interleaved.isEmpty()) {
			return;
		}
		this.page.line("### The same, interleaved in one JVM, in rounds");
		this.page.line();
		this.page.line("The libraries of one store in one fresh JVM, in short batches of cycles, one library after "
				+ "the other, batch after batch, every sample kept: every library of a store sees the same load. The "
				+ "whole is repeated in rounds, each in fresh JVMs that first run batches until their JIT compiler "
				+ "has been idle for 2 seconds (at most 30 s); the table gives the median of the rounds' figures "
				+ "and each round's p50, and the targets are judged on every round.");
		this.page.line();
		List<String[]> rows = new ArrayList<>();
		for (Map.Entry<String, Results.Latency> entry : this.results.interleaved.entrySet()) {
			String store = Libraries.store(entry.getKey());
			Results.Latency floor = this.results.interleaved
				.get(store.equals("memory") ? Libraries.MEMORY_OURS_HANDLE : store + "-floor");
			Results.Latency latency = entry.getValue();
			String perRound = latency.rounds.values()
				.stream()
				.map((round) -> Markdown.micros(round.p50))
				.collect(Collectors.joining(" · "));
			rows.add(new String[] { storeName(store).split(":")[0], Libraries.label(entry.getKey()),
					Markdown.code(entry.getKey()), Markdown.micros(latency.p50),
					Markdown.ratio(latency.p50, (floor != null) ? floor.p50 : Double.NaN), Markdown.micros(latency.p99),
					Markdown.ratio(latency.p99, (floor != null) ? floor.p99 : Double.NaN),
					Markdown.micros(latency.mean), perRound });
		}
		this.page.table(List.of("store", "library", "name", "p50 µs", "x floor", "p99 µs", "x floor", "mean µs",
				"p50 µs per round"), rows);
		this.page.line("(For the in-memory backend, the ratios are against the direct call.)");
		this.page.line();
		roundLoads(this.results.interleavedRounds);
	}

	void commands() {
		if (this.results.commands.isEmpty()) {
			return;
		}
		this.page.line("## Store commands per lock + unlock");
		this.page.line();
		this.page.line("Counted over many uncontended cycles on one thread. Redis: `INFO commandstats` counts every "
				+ "command, including those run inside Lua scripts; `MONITOR` tells the ones the client sent (its "
				+ "round trips) from the script-internal ones. ZooKeeper: requests received and transaction-log "
				+ "fsyncs from the server's `mntr`. Redis server µs: the server's own time for the commands the "
				+ "client sent (`usec` of `INFO commandstats`; a script's time includes its commands). PostgreSQL: "
				+ "statements executed and explicit commits through a counting `DataSource`.");
		this.page.line();
		List<String[]> rows = new ArrayList<>();
		for (JsonNode count : this.results.commands) {
			double fsyncs = Results.number(count.path("fsyncs"));
			rows.add(new String[] { Libraries.label(count.path("library").asString()),
					Markdown.number(Results.number(count.path("clientRequests"))),
					Markdown.number(Results.number(count.path("scriptCommands"))),
					Markdown.number(Results.number(count.path("allCommands"))),
					Double.isNaN(fsyncs) ? "" : Markdown.number(fsyncs),
					Markdown.micros(Results.number(count.path("serverMicros"))), count.path("detail").asString() });
		}
		this.page.table(List.of("library", "client round trips", "in scripts", "all commands", "ZooKeeper fsyncs",
				"Redis server µs", "detail"), rows);
	}

	void contended() {
		if (this.results.contended.isEmpty()) {
			return;
		}
		this.page.line("## Contended: one key");
		this.page.line();
		this.page.line("Plain Java harness (the hand-off spans threads and JVMs, which JMH does not time): 4 threads "
				+ "in one JVM, then 2 JVMs of 2 threads, all taking and releasing one key as fast as they can. "
				+ "Hand-off: from the holder's call to unlock to the next holder's lock returning (timestamps shared "
				+ "through a memory-mapped file, on the system-wide monotonic clock). Overlaps must be 0: they count "
				+ "acquisitions while another holder still held the lock. Each run was repeated in rounds, every "
				+ "library once per round in fresh JVMs; the table gives the round of median throughput, every "
				+ "round's throughput in order with the 1-minute load average just before that run (after the @), "
				+ "and timeouts, overlaps and errors summed over all rounds. Warm-up: each run's threads contend "
				+ "until the JIT compilers of all its JVMs have been idle for 2 seconds (at least the shortest "
				+ "warm-up, at most the longest, see the settings; * marks a run measured before its compiler "
				+ "settled), as a fixed warm-up measured some libraries half-compiled on a busy machine. Busiest "
				+ "JVM's share: of 2 JVMs, the share of the acquisitions the busier one made (50% is even; near "
				+ "100% means one JVM kept the lock and the other mostly waited). CPU µs per acquisition: the CPU time "
				+ "of the run's JVMs (all their threads, the client's own included) over the measured window, "
				+ "divided by the acquisitions: on a machine of 2 cores, a library that needs more CPU per hand-off "
				+ "loses more when other work competes for the cores.");
		this.page.line();
		List<String[]> rows = new ArrayList<>();
		for (JsonNode result : this.results.contended) {
			String perRound = Results.rounds(result)
				.values()
				.stream()
				.map((round) -> Markdown.perSecond(Results.number(round.path("acquisitionsPerSecond"))) + " @"
						+ round.path("loadBefore").asString().split(" ")[0])
				.collect(Collectors.joining(" · "));
			String warmups = Results.rounds(result)
				.values()
				.stream()
				.map((round) -> String.format("%.1f", round.path("warmupMillis").asLong() / 1000.0)
						+ (round.path("jitSettled").asBoolean(true) ? "" : "*"))
				.collect(Collectors.joining(" · "));
			String shares = (result.path("jvms").asInt() < 2) ? ""
					: Results.rounds(result)
						.values()
						.stream()
						.map((round) -> Results.number(round.path("busiestJvmShare")))
						.map((share) -> Double.isNaN(share) ? "?" : String.format("%.0f%%", 100 * share))
						.collect(Collectors.joining(" · "));
			rows.add(new String[] { Libraries.label(result.path("library").asString()),
					Markdown.code(result.path("library").asString()),
					result.path("jvms").asInt() + " x " + result.path("threadsPerJvm").asInt(),
					Markdown.perSecond(Results.number(result.path("acquisitionsPerSecond"))), perRound, shares, warmups,
					Markdown.millis(Results.number(result.path("handOffP50Micros"))),
					Markdown.millis(Results.number(result.path("handOffP99Micros"))),
					Markdown.micros(Results.number(result.path("cpuMicrosPerAcquisition"))),
					Long.toString(result.path("timeouts").asLong()), Long.toString(result.path("overlaps").asLong()),
					result.path("errors").asLong() == 0 ? "" : result.path("error").asString() });
		}
		this.page.table(List.of("library", "name", "JVMs x threads", "acquisitions/s (median round)",
				"acquisitions/s per round @ load", "busiest JVM's share per round", "warm-up s per round",
				"hand-off p50 ms", "hand-off p99 ms", "CPU µs per acquisition", "2 s waits timed out", "overlaps",
				"errors"), rows);
		roundLoads(this.results.contendedRounds);
	}

	void scale() {
		if (this.results.scale.isEmpty()) {
			return;
		}
		this.page.line("## Scale: distinct keys");
		this.page.line();
		this.page.line("Each library in a fresh JVM locks and unlocks many distinct keys on 16 threads (the stores "
				+ "side by side, the libraries of one store one after the other). Left in the store: what the cycles "
				+ "added to the library's own store (Redis keys, and how many of them expire by themselves; znodes; "
				+ "rows of the lock tables), right after the last cycle. Retained heap: heap in use after full "
				+ "collections, minus the same after a warm-up.");
		this.page.line();
		List<String[]> rows = new ArrayList<>();
		for (JsonNode result : this.results.scale) {
			long cycles = result.path("cycles").asLong();
			long heap = result.path("retainedHeapBytes").asLong();
			ScaleResult scale = new ScaleResult(result.path("library").asString(), cycles,
					Results.number(result.path("seconds")), result.path("redisKeys").asLong(),
					result.path("redisExpiring").asLong(), result.path("znodes").asLong(), result.path("rows").asLong(),
					heap);
			rows.add(new String[] { Libraries.label(scale.library()), Markdown.code(scale.library()),
					String.format("%,d", cycles), String.format("%.1f", scale.seconds()), scale.leftInStore(),
					String.format("%,.1f MB (%,d bytes/key)", heap / 1e6, heap / Math.max(1, cycles)) });
		}
		this.page.table(List.of("library", "name", "keys", "seconds", "left in the store", "retained heap"), rows);
	}

	private void roundLoads(List<JsonNode> rounds) {
		if (rounds.isEmpty()) {
			return;
		}
		List<String[]> rows = new ArrayList<>();
		for (JsonNode round : rounds) {
			rows.add(new String[] { Integer.toString(round.path("round").asInt()), round.path("atStart").asString(),
					round.path("atEnd").asString() });
		}
		this.page.line("Load average (1, 5 and 15 minutes) at the start and the end of each round (the harness's own "
				+ "JVMs and servers keep about 2 cores busy while they run, so a load near 2 is the run itself):");
		this.page.line();
		this.page.table(List.of("round", "at start", "at end"), rows);
	}

	static String storeName(String store) {
		return switch (store) {
			case "redis" -> "Redis";
			case "zookeeper" -> "ZooKeeper";
			case "memory" -> "No store: an in-memory backend, so only the engine and @Lockable cost anything";
			default -> "PostgreSQL";
		};
	}

}
