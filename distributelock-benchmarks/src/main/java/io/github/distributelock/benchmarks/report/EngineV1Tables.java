package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.distributelock.benchmarks.harness.EngineV1Libraries;
import io.github.distributelock.benchmarks.harness.Libraries;
import io.github.distributelock.benchmarks.ours.EngineV1;

/**
 * The page's table of today's engine against engine v1 ({@link EngineV1}): its blocking
 * path, interleaved with engine v1's in one JVM per store and round, judged against issue
 * #13's "within 3% of today's on every store" in every round. Written only when the
 * interleaved run had engine v1's rows ({@code --with-v1}).
 */
final class EngineV1Tables {

	/** The most today's p50 may be over engine v1's, in every round. */
	static final double MOST = 1.03;

	private EngineV1Tables() {
	}

	static void write(Results results, Markdown page) {
		List<String[]> rows = new ArrayList<>();
		for (String v1 : EngineV1Libraries.all()) {
			String todayName = EngineV1Libraries.today(v1);
			Results.Latency before = results.interleaved.get(v1);
			Results.Latency today = results.interleaved.get(todayName);
			if (before != null && today != null) {
				rows.add(row(v1, todayName, before, today));
			}
		}
		if (rows.isEmpty()) {
			return;
		}
		page.line("### Today's engine against engine v1, interleaved");
		page.line();
		page.line("Engine v1 is the starter of commit `" + EngineV1.COMMIT
				+ "`, the last before the engine was rebuilt, " + "built by `" + EngineV1.BUILD_SCRIPT
				+ "` and loaded from its own jar beside today's in each "
				+ "store's JVM of the interleaved run above, on the same kind of client; both are called as the rows "
				+ "above call ours. The ratio is today's p50 over engine v1's in the same round.");
		page.line();
		page.table(List.of("store", "call", "v1 p50 µs", "today p50 µs", "today ÷ v1", "today ÷ v1 per round",
				"within 3% in every round"), rows);
	}

	private static String[] row(String v1, String todayName, Results.Latency before, Results.Latency today) {
		List<String> perRound = new ArrayList<>();
		int within = 0;
		for (Map.Entry<Integer, Results.Latency> round : before.rounds.entrySet()) {
			Results.Latency same = today.rounds.get(round.getKey());
			if (same != null) {
				double ratio = same.p50 / round.getValue().p50;
				perRound.add(String.format("%.3f", ratio));
				within += (ratio <= MOST) ? 1 : 0;
			}
		}
		String verdict = (within == perRound.size()) ? "met (" + within + " of " + perRound.size() + ")"
				: "**not met**: " + within + " of " + perRound.size() + " rounds";
		return new String[] { ResultTables.storeName(Libraries.store(v1)).split(":")[0], Libraries.label(todayName),
				Markdown.micros(before.p50), Markdown.micros(today.p50), String.format("%.3f", today.p50 / before.p50),
				String.join(" · ", perRound), verdict };
	}

}
