package io.github.distributelock.benchmarks.report;

import java.util.List;

import io.github.distributelock.benchmarks.ours.EngineV1;

/**
 * The page's "How to re-run" section: the command of the whole page, and of one row.
 */
final class ReRun {

	/** The row run of today's engine against engine v1, on every store. */
	static final List<String> V1_ROW_RUN = List.of("redis-floor", "redis-v1-handle", "redis-ours-handle",
			"redis-v1-trylock", "redis-ours-trylock", "zookeeper-floor", "zookeeper-v1-handle", "zookeeper-ours-handle",
			"zookeeper-v1-trylock", "zookeeper-ours-trylock", "jdbc-floor", "jdbc-v1-handle", "jdbc-ours-handle",
			"jdbc-v1-trylock", "jdbc-ours-trylock");

	private ReRun() {
	}

	/**
	 * Writes the section.
	 * @param page the page
	 * @param took how long the page's run took
	 */
	static void write(Markdown page, String took) {
		page.line("## How to re-run");
		page.line();
		page.line("From the repository's root, build once:");
		page.line();
		page.line("```");
		page.line(Report.BUILD);
		page.line("```");
		page.line();
		page.line(
				"The whole page (the run below took " + took + "; it rewrites this page and `" + Report.CHART + "`):");
		page.line();
		page.line("```");
		page.line(Report.RUN);
		page.line("```");
		page.line();
		page.line("One row: name its library (the `name` column of each table) and its part, and for a contended row "
				+ "its shape (`--jvms=1`: 1 JVM x 4 threads, `--jvms=2`: 2 JVMs x 2 threads). A row run starts the "
				+ "same servers, logs each round's figure with the load average, writes its JSON to "
				+ "`distributelock-benchmarks/target/benchmark-rows/` and leaves this page as it is. For example, "
				+ "Redisson with 4 threads in one JVM, then our Redis lock and its floor interleaved:");
		page.line();
		page.line("```");
		page.line(Report.RUN + " --parts=contended --libraries=redis-redisson --jvms=1");
		page.line(Report.RUN + " --parts=interleaved --libraries=redis-floor,redis-ours-handle");
		page.line("```");
		page.line();
		page.line("Today's engine against engine v1 (the starter of commit `" + EngineV1.COMMIT + "`, built into "
				+ "`distributelock-benchmarks/target/v1/` by `" + EngineV1.BUILD_SCRIPT + "`, which the run calls if "
				+ "the jar is missing; it needs a full clone): name the `<store>-v1-handle` and `<store>-v1-trylock` "
				+ "rows beside ours, in the order to measure them, or add `--with-v1` to a run of the whole page:");
		page.line();
		page.line("```");
		page.line(Report.RUN + " --parts=interleaved --rounds=5 --libraries=" + String.join(",", V1_ROW_RUN));
		page.line("```");
		page.line();
		page.line("Parts: `uncontended` (JMH), `interleaved`, `commands`, `contended`, `scale`, and the JDBC rows "
				+ "`jdbc-shards` (one database against two shards) and `jdbc-handoff` (PostgreSQL hand-off across JVMs, "
				+ "notification against polling); a run of only the JDBC rows is a row run: `" + Report.RUN
				+ " --parts=jdbc-shards,jdbc-handoff`; so is a run of only the lock kinds and reactive rows, `"
				+ Report.RUN
				+ " --parts=kinds,reactive`, which rewrites their two sections and the peer configurations of this "
				+ "page and leaves the rest as it is (the kinds' targets are judged pinned to one core: `taskset -c 0 "
				+ Report.RUN
				+ " --parts=kinds`, see \"Lock kinds\"). Two parts run only when named, as a row run: `redis-trace` (the "
				+ "timeline of one Redis hand-off across JVMs, step by step: `" + Report.RUN
				+ " --parts=redis-trace`) and, while any contended Redis row runs, the store's commands per second "
				+ "over its measured window are logged. Other options: "
				+ "`--rounds=N` (rounds of the interleaved and contended parts, 3 by default), `--quick` (a short run "
				+ "that only checks that everything works), and the quiet-machine gate: before starting, the run "
				+ "waits up to `--quiet-wait=300` seconds for the 1-minute load average to fall below "
				+ "`--quiet-below=1`, then starts anyway and records it (the machine table below says which). To "
				+ "profile a row, give its worker JVMs options with `-Dbenchmarks.child-jvm-options=\"...\"` before "
				+ "`-jar`, e.g. `-XX:StartFlightRecording=filename=/tmp/rows/`.");
		page.line();
	}

}
