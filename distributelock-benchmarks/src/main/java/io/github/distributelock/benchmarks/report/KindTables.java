package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.distributelock.benchmarks.harness.KindLibraries;
import io.github.distributelock.benchmarks.harness.Libraries;
import io.github.distributelock.benchmarks.ours.OursKindLibrary.Kind;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The page's "Lock kinds" section, when its rows ran: the uncontended cost of each kind
 * of our lock on Redis and ZooKeeper beside our exclusive lock and the peers'
 * equivalents, and the contended fair lock beside Redisson's {@code RFairLock} and
 * Curator's {@code InterProcessMutex}, with the targets judged in every round.
 */
final class KindTables {

	static final String SECTION = "## Lock kinds";

	/**
	 * The kinds' rows run pinned to one core, where their targets are judged
	 * ({@link #pinning}); the reactive rows run on every core.
	 */
	static final String COMMAND = "taskset -c 0 " + Report.RUN + " --parts=kinds\n" + Report.RUN + " --parts=reactive";

	private static final List<String> STORES = List.of("redis", "zookeeper");

	private KindTables() {
	}

	static void write(Results results, Markdown page) {
		if (results.kindsInterleaved == null && results.kindsContended == null) {
			return;
		}
		page.line(SECTION);
		page.line();
		page.line("Our fair, read/write, permit and multi-key locks, each through the `DistributeLock` bean's "
				+ "`tryAcquire(LockRequest)` and closed after use, beside our exclusive lock and the peers' "
				+ "equivalents, in the same run. Re-run these rows, pinned to one core (about 8 minutes), and "
				+ "the reactive ones (about 3 minutes); each run rewrites its section and the peer configurations, "
				+ "and leaves the rest of the page as it is:");
		page.line();
		page.line("```");
		page.line(Report.BUILD);
		page.line(COMMAND);
		page.line("```");
		page.line();
		page.line("(`--parts=kinds,reactive` runs both in one JVM of the harness; `--rounds=N` sets the rounds.) "
				+ RunLine.of(results.kindsRun));
		page.line();
		pinning(results.kindsRun, page);
		Map<String, JsonNode> rows = RowFigures.byLibrary(results.kindsInterleaved);
		if (!rows.isEmpty()) {
			page.line("### Uncontended, one thread");
			page.line();
			page.line("Interleaved as the main table's: per store and round a fresh JVM warms up until its JIT "
					+ "compiler is idle, then runs every library below in turn, in batches (100 cycles on Redis, 20 on "
					+ "ZooKeeper), " + batches(results.kindsRun) + " batches per library; p50 of every round in µs, "
					+ "round 1 / 2 / 3. Load average at the start → end of each round: "
					+ RowFigures.loads(results.kindsInterleaved) + ".");
			page.line();
			page.table(List.of("store", "kind", "ours: p50 µs per round", "median", "÷ our exclusive lock (median)",
					"peer", "peer: p50 µs per round", "median", "peer ÷ ours (median)"), uncontendedRows(rows));
			page.line("A multi-key request takes its keys in one store round trip where the store can (one script "
					+ "on Redis, keys in one hash slot on a Cluster; one `multi` on ZooKeeper), and one after the "
					+ "other, in their global order, otherwise (`MultiKeyLocks` in the engine); Redisson's and "
					+ "Curator's multi-locks take them one after the other.");
			page.line();
			storeAloneForTwoKeys(page, rows);
		}
		if (results.kindsContended != null) {
			page.line("### Contended fair lock, one key");
			page.line();
			page.line("The contended harness of the main table, shorter: 4 threads in 1 JVM (sharing one client, "
					+ "and on ZooKeeper one session) take and release one key, in a fresh JVM per library and round, "
					+ "warmed up until the JIT compiler is idle (at least 3 s, at most 30 s), then 4 s measured; the "
					+ "libraries take turns in each round.");
			page.line();
			page.table(RowFigures.CONTENDED_HEADER, RowFigures.contendedRows(results.kindsContended));
		}
		page.line("### Targets of the lock kinds");
		page.line();
		page.line("Judged in every round, each round pairing the two rows' figures of that round: a target met at "
				+ "the median but missed in a round is **not met**.");
		page.line();
		page.table(List.of("target", "measured (same run)", "verdict"), targets(results, rows));
	}

	/**
	 * ZooKeeper's raw client, two keys in one transaction against one key, measured
	 * beside the multi-key row: what a {@code multi} costs the store itself.
	 */
	private static void storeAloneForTwoKeys(Markdown page, Map<String, JsonNode> rows) {
		JsonNode one = rows.get(Libraries.ZK_FLOOR);
		JsonNode two = rows.get(Libraries.ZK_FLOOR_TWO_KEYS);
		if (one == null || two == null) {
			return;
		}
		page.line("What two keys cost ZooKeeper itself, measured in the same rounds: the raw client's `multi` of two "
				+ "creates and `multi` of two deletes (" + Markdown.code(Libraries.ZK_FLOOR_TWO_KEYS) + ") p50 "
				+ RowFigures.perRound(two, "p50Micros") + " µs, against one key's create and delete ("
				+ Markdown.code(Libraries.ZK_FLOOR) + ") " + RowFigures.perRound(one, "p50Micros") + " µs: "
				+ RowFigures.perRoundRatio(two, one, "p50Micros") + " per round. Our multi-key lock sends the same "
				+ "two transactions and, between them, one read-only `multi` of both nodes' owners, as our "
				+ "exclusive lock reads its node's owner before deleting it.");
		page.line();
	}

	private static List<String[]> uncontendedRows(Map<String, JsonNode> rows) {
		List<String[]> table = new ArrayList<>();
		for (String store : STORES) {
			JsonNode exclusive = rows.get(KindLibraries.exclusive(store));
			table.add(
					row(store, "exclusive (the base)", exclusive, exclusive, KindLibraries.peerExclusive(store), rows));
			for (Kind kind : Kind.values()) {
				table.add(row(store, KindLibraries.describe(kind), rows.get(KindLibraries.ours(store, kind)), exclusive,
						KindLibraries.peer(store, kind), rows));
			}
		}
		return table;
	}

	private static String[] row(String store, String kind, @Nullable JsonNode ours, @Nullable JsonNode exclusive,
			String peer, Map<String, JsonNode> rows) {
		JsonNode theirs = rows.get(peer);
		double p50 = (ours != null) ? Results.number(ours.path("p50Micros")) : Double.NaN;
		double base = (exclusive != null) ? Results.number(exclusive.path("p50Micros")) : Double.NaN;
		double peerP50 = (theirs != null) ? Results.number(theirs.path("p50Micros")) : Double.NaN;
		return new String[] { store.equals("redis") ? "Redis" : "ZooKeeper", kind,
				RowFigures.perRound(ours, "p50Micros"), Markdown.micros(p50), Markdown.ratio(p50, base),
				Libraries.label(peer) + " (" + Markdown.code(peer) + ")", RowFigures.perRound(theirs, "p50Micros"),
				Markdown.micros(peerP50), Markdown.ratio(peerP50, p50) };
	}

	private static List<String[]> targets(Results results, Map<String, JsonNode> rows) {
		List<String[]> targets = new ArrayList<>();
		for (String store : STORES) {
			String name = store.equals("redis") ? "Redis" : "ZooKeeper";
			for (Kind kind : Kind.values()) {
				targets.add(RowFigures.ratioTarget(
						name + ", " + KindLibraries.describe(kind)
								+ ": uncontended p50 within 1.2x of our exclusive lock",
						rows.get(KindLibraries.ours(store, kind)), rows.get(KindLibraries.exclusive(store)),
						"p50Micros", 1.2, true));
			}
		}
		Map<String, JsonNode> contended = RowFigures.byLibrary(results.kindsContended);
		targets.add(RowFigures.ratioTarget(
				"Redis, contended fair lock (1 JVM x 4 threads): throughput at least 3x Redisson's RFairLock",
				contended.get(KindLibraries.ours("redis", Kind.FAIR)),
				contended.get(KindLibraries.peer("redis", Kind.FAIR)), "acquisitionsPerSecond", 3, false));
		targets.add(RowFigures.ratioTarget(
				"ZooKeeper, contended fair lock (1 JVM x 4 threads sharing one session): throughput at least 1.2x "
						+ "Curator's InterProcessMutex",
				contended.get(KindLibraries.ours("zookeeper", Kind.FAIR)),
				contended.get(KindLibraries.peer("zookeeper", Kind.FAIR)), "acquisitionsPerSecond", 1.2, false));
		return targets;
	}

	private static String batches(@Nullable JsonNode run) {
		if (run == null) {
			return "the run's";
		}
		return run.path("mode").asString().equals("quick")
				? Integer.toString(run.path("settings").path("interleavedBatches").asInt()) : "30";
	}

	/**
	 * Says whether the run was pinned, since the kinds' targets are judged pinned: on a
	 * shared machine of 2 cores an unpinned run measures the scheduler's spreading of
	 * each library's threads over the cores as much as the library.
	 */
	private static void pinning(@Nullable JsonNode run, Markdown page) {
		if (run == null) {
			return;
		}
		if ("1".equals(run.path("machine").path("cores").asString())) {
			page.line("These rows are measured **pinned to one core** (the harness saw 1 core): every JVM of the run "
					+ "and its Redis and ZooKeeper servers share it, and the targets below are judged on this "
					+ "configuration. The machines are shared, other engineers' builds run on the other core, and an "
					+ "unpinned run measures how the scheduler spreads the libraries' threads over two cores as much as "
					+ "the libraries; pinned, both sides of every ratio run under the same conditions, as the engine "
					+ "v2 against v1 comparison is also judged. The analysis (\"Lock kinds and reactive rows\") has "
					+ "runs of both configurations.");
		}
		else {
			page.line("**This run was not pinned** (the harness saw " + run.path("machine").path("cores").asString()
					+ " cores): the targets of the lock kinds are judged pinned to one core, with the command above, "
					+ "so the verdicts below describe this configuration only.");
		}
		page.line();
	}

}
