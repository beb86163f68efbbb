package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.distributelock.benchmarks.harness.KindLibraries;
import io.github.distributelock.benchmarks.harness.Libraries;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The page's "Reactive and non-blocking" section, when its rows ran: our
 * {@code ReactiveDistributeLock} beside the blocking path on Redis, uncontended and
 * contended, and many non-blocking waiters on one Redis key with the threads and heap
 * they cost.
 */
final class ReactiveTables {

	static final String SECTION = "## Reactive and non-blocking";

	private ReactiveTables() {
	}

	static void write(Results results, Markdown page) {
		if (results.reactiveInterleaved == null && results.reactiveContended == null
				&& results.reactiveWaiters == null) {
			return;
		}
		page.line(SECTION);
		page.line();
		page.line("Our `ReactiveDistributeLock` (`DefaultReactiveDistributeLock` over the same `DefaultDistributeLock` "
				+ "on Redis) beside the blocking path, in the same run; the command is in \"Lock kinds\" above "
				+ "(`--parts=reactive` runs only these rows). " + RunLine.of(results.reactiveRun));
		page.line();
		Map<String, JsonNode> rows = RowFigures.byLibrary(results.reactiveInterleaved);
		JsonNode blocking = rows.get(Libraries.REDIS_OURS_HANDLE);
		if (!rows.isEmpty()) {
			page.line("### Uncontended lock + work + unlock, one thread");
			page.line();
			page.line("Interleaved in one fresh JVM per round, as the lock kinds: the reactive cycle is "
					+ "`withLockMono(request, handle -> Mono.just(key), busy).block()` (the lock taken at subscription, "
					+ "the work a `Mono`, the release non-blocking), the blocking one `tryAcquire` + `close()`. "
					+ "`withLockMono` hands the held lock to a thread of Reactor's parallel scheduler before the work "
					+ "(`DefaultReactiveDistributeLock`: the acquisition completes on a Redis I/O thread, where work "
					+ "that waits for the same client would wait for itself), and the measuring thread, parked in "
					+ "`block()`, is woken at the end: one thread hand-off more than the blocking path, and on a busy "
					+ "machine a hand-off costs more. The third row takes the lock as a `Mono<LockHandle>` "
					+ "(`tryAcquire(request).block()`) and releases it with `releaseAsync()`, without that hand-off: "
					+ "the calls of the contended loop below. " + "Load average at the start → end of each round: "
					+ RowFigures.loads(results.reactiveInterleaved) + ".");
			page.line();
			List<String[]> table = new ArrayList<>();
			for (JsonNode row : rows.values()) {
				String library = row.path("library").asString();
				double p50 = Results.number(row.path("p50Micros"));
				table.add(new String[] { Libraries.label(library), Markdown.code(library),
						RowFigures.perRound(row, "p50Micros"), Markdown.micros(p50),
						Markdown.micros(Results.number(row.path("p99Micros"))), Markdown.ratio(p50,
								(blocking != null) ? Results.number(blocking.path("p50Micros")) : Double.NaN) });
			}
			page.table(
					List.of("library", "name", "p50 µs per round", "median", "p99 µs (median)", "÷ blocking (median)"),
					table);
		}
		if (results.reactiveContended != null) {
			page.line("### Contended, one key");
			page.line();
			page.line("The contended harness as for the fair lock (1 JVM x 4 callers, at least 3 s and at most 30 s "
					+ "warm-up, 4 s measured). The blocking row's callers are 4 threads. The reactive rows' callers "
					+ "are 4 subscriptions, as a reactive application runs them, and no thread is kept per caller: "
					+ "each repeats its cycle once the previous release completed (`repeat()`), and what runs under "
					+ "the lock (marking the holder, counting, timing the hand-off) is the blocking row's. "
					+ "`withLockMono` runs the work as a `Mono` and, by design, on Reactor's `parallel()` "
					+ "scheduler: the lock is taken on a Redis I/O thread, where blocking work would stall the "
					+ "client. `tryAcquire + releaseAsync` chains the work and the release on the `Mono<LockHandle>` "
					+ "(`flatMap`), on the thread the lock was taken on, as non-blocking work may run.");
			page.line();
			page.table(RowFigures.CONTENDED_HEADER, RowFigures.contendedRows(results.reactiveContended));
		}
		if (results.reactiveWaiters != null) {
			waiters(results.reactiveWaiters, page);
		}
		page.line("### Targets of the reactive and non-blocking rows");
		page.line();
		Map<String, JsonNode> contended = RowFigures.byLibrary(results.reactiveContended);
		List<String[]> targets = new ArrayList<>();
		targets.add(RowFigures.ratioTarget(
				"Reactive uncontended lock + work + unlock p50 within 1.10x of the blocking path",
				rows.get(KindLibraries.REDIS_OURS_REACTIVE), blocking, "p50Micros", 1.10, true));
		targets.add(RowFigures.ratioTarget(
				"Reactive contended throughput on one key at least the blocking path's: "
						+ "`tryAcquire` + `releaseAsync`, work chained on the lock",
				contended.get(KindLibraries.REDIS_OURS_REACTIVE_ACQUIRE), contended.get(Libraries.REDIS_OURS_HANDLE),
				"acquisitionsPerSecond", 1.0, false));
		targets.add(RowFigures.ratioTarget(
				"Reactive contended throughput on one key at least the blocking path's: "
						+ "`withLockMono`, work moved to `parallel()`",
				contended.get(KindLibraries.REDIS_OURS_REACTIVE), contended.get(Libraries.REDIS_OURS_HANDLE),
				"acquisitionsPerSecond", 1.0, false));
		for (String api : List.of("async", "reactive")) {
			targets.add(threadsTarget(results.reactiveWaiters, api));
		}
		page.table(List.of("target", "measured (same run)", "verdict"), targets);
	}

	private static void waiters(JsonNode part, Markdown page) {
		page.line("### Many waiters on one key");
		page.line();
		page.line("As the starter's `RedisManyAsyncWaitersTests`: in a fresh JVM per round (`-Xmx512m`), one holder "
				+ "keeps a Redis key while 10, then 10,000 callers start waiting for it without blocking, through "
				+ "`DistributeLock.tryAcquireAsync` (the non-blocking API of the engine issue) and through "
				+ "`ReactiveDistributeLock.withLockMono` (subscribed with `toFuture()`); once all wait, the JVM's "
				+ "live threads and its heap in use (after `System.gc()`) are read; then the holder releases and each "
				+ "waiter holds the key once, alone, and releases it. The rows serve both issues' many-waiters "
				+ "figure. Warm-up: three rounds of 1,000 waiters per API first.");
		page.line();
		List<String[]> rows = new ArrayList<>();
		for (JsonNode round : part.path("results")) {
			long heap = round.path("heapWhileWaitingBytes").asLong() - round.path("heapBeforeBytes").asLong();
			int waiters = round.path("waiters").asInt();
			rows.add(new String[] { Integer.toString(round.path("round").asInt()), api(round.path("api").asString()),
					String.format("%,d", waiters), Integer.toString(round.path("threadsBefore").asInt()),
					Integer.toString(round.path("threadsWhileWaiting").asInt()),
					Integer.toString(round.path("peakThreads").asInt()), String.format("%,.1f", heap / 1048576.0),
					(waiters >= 1000) ? String.format("%,d", heap / waiters) : "(within the GC's noise)",
					String.format("%,d", round.path("servedMillis").asLong()),
					round.path("servedEarly").asLong() + " / " + round.path("overlaps").asLong(),
					round.path("loadBefore").asString() + " → " + round.path("loadAfter").asString() });
		}
		page.table(List.of("round", "API", "waiters", "live threads before", "live threads while waiting",
				"peak threads", "heap while waiting − before, MiB", "bytes per waiter", "all served in ms",
				"served early / overlaps", "load average (round's JVM start → end)"), rows);
	}

	private static String api(String api) {
		return api.equals("async") ? "`tryAcquireAsync`" : "`ReactiveDistributeLock.withLockMono`";
	}

	/**
	 * 10,000 waiters served with no more live threads than 10, while waiting and at the
	 * peak.
	 */
	private static String[] threadsTarget(@Nullable JsonNode part, String api) {
		String target = "10,000 waiters through " + api(api)
				+ " on one Redis key with no more live threads than 10 waiters (while waiting and at the peak)";
		Map<Integer, JsonNode> ten = new TreeMap<>();
		Map<Integer, JsonNode> many = new TreeMap<>();
		if (part != null) {
			for (JsonNode round : part.path("results")) {
				if (round.path("api").asString().equals(api)) {
					(round.path("waiters").asInt() == 10 ? ten : many).put(round.path("round").asInt(), round);
				}
			}
		}
		if (ten.isEmpty() || many.isEmpty()) {
			return new String[] { target, "not measured in this run", "**not measured**" };
		}
		List<Boolean> met = new ArrayList<>();
		List<String> figures = new ArrayList<>();
		for (Map.Entry<Integer, JsonNode> round : many.entrySet()) {
			JsonNode few = ten.get(round.getKey());
			JsonNode lots = round.getValue();
			boolean ok = few != null
					&& lots.path("threadsWhileWaiting").asInt() <= few.path("threadsWhileWaiting").asInt()
					&& lots.path("peakThreads").asInt() <= few.path("peakThreads").asInt();
			met.add(ok);
			figures.add("round " + round.getKey() + ": " + lots.path("threadsWhileWaiting").asInt() + " (peak "
					+ lots.path("peakThreads").asInt() + ") vs "
					+ ((few != null) ? few.path("threadsWhileWaiting").asInt() + " (peak "
							+ few.path("peakThreads").asInt() + ")" : "?"));
		}
		return new String[] { target, "live threads, 10,000 vs 10: " + String.join("; ", figures),
				new Verdict(!met.contains(false), met).text() };
	}

}
