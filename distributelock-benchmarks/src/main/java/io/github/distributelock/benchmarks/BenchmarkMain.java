package io.github.distributelock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.harness.CommandCounter;
import io.github.distributelock.benchmarks.harness.ContendedHarness;
import io.github.distributelock.benchmarks.harness.EngineV1Libraries;
import io.github.distributelock.benchmarks.harness.HandOffHarness;
import io.github.distributelock.benchmarks.harness.RedisHandOffTrace;
import io.github.distributelock.benchmarks.harness.InterleavedHarness;
import io.github.distributelock.benchmarks.harness.KindLibraries;
import io.github.distributelock.benchmarks.harness.Libraries;
import io.github.distributelock.benchmarks.harness.LoadAverage;
import io.github.distributelock.benchmarks.harness.PartLoad;
import io.github.distributelock.benchmarks.harness.QuietGate;
import io.github.distributelock.benchmarks.harness.RunInfo;
import io.github.distributelock.benchmarks.harness.ScaleHarness;
import io.github.distributelock.benchmarks.harness.ShardsHarness;
import io.github.distributelock.benchmarks.harness.Settings;
import io.github.distributelock.benchmarks.harness.UncontendedBenchmark;
import io.github.distributelock.benchmarks.harness.WaitersHarness;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.ours.EngineV1;
import io.github.distributelock.benchmarks.report.Report;
import io.github.distributelock.benchmarks.store.Servers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs every benchmark against one set of servers and writes the page: waits for a quiet
 * machine (bounded), starts Redis, ZooKeeper and PostgreSQL on loopback ports, runs the
 * JMH uncontended benchmarks, the interleaved latencies, counts store commands, runs the
 * contended and scale harnesses, stops the servers (also on failure or Ctrl-C), then
 * writes {@code docs/benchmarks.md} and its chart with {@link Report}. Run from the
 * repository's root.
 * <p>
 * Options: {@code --quick} (a short run that checks everything works),
 * {@code --parts=uncontended,interleaved,commands,contended,scale,jdbc-shards,jdbc-handoff,kinds,reactive}
 * and, only when named, {@code redis-trace} (a row run: the timeline of one Redis
 * hand-off across JVMs, {@link RedisHandOffTrace}) (only these parts; the page is written
 * from whatever results exist, except for a run of only the JDBC rows, which is a row
 * run, and a run of only the {@code kinds} and {@code reactive} rows, a row run that
 * writes their sections and the peer configurations into the page and leaves the rest of
 * it as it is), {@code --libraries=a,b} and {@code --jvms=1} or {@code --jvms=2} (only
 * these libraries and contended shapes: a row run, whose results go to
 * {@code target/benchmark-rows} and the log, never to the page), {@code --rounds=N}
 * (rounds of the interleaved and contended parts), {@code --with-v1} (engine v1's rows,
 * {@link EngineV1Libraries}, in the interleaved part beside today's; they are measured
 * only when asked for, by this or by {@code --libraries}, and their jar is built by
 * {@link EngineV1#buildIfMissing()} if it is not there), {@code --quiet-below=L} and
 * {@code --quiet-wait=S} (wait up to S seconds for the 1-minute load average to fall
 * below L before starting: 1 and 300 by default, 0 s for the quick run).
 */
public final class BenchmarkMain {

	private static final Log logger = LogFactory.getLog(BenchmarkMain.class);

	static final Path RESULTS = Path.of("distributelock-benchmarks", "target", "benchmark-results");

	static final Path ROWS = Path.of("distributelock-benchmarks", "target", "benchmark-rows");

	static final Path DOCS = Path.of("docs");

	private static final List<String> PARTS = List.of("uncontended", "interleaved", "commands", "contended", "scale",
			"jdbc-shards", "jdbc-handoff", "kinds", "reactive");

	/**
	 * Parts run only when named, always as a row run: the step-by-step trace of a Redis
	 * hand-off across JVMs.
	 */
	private static final Set<String> ON_REQUEST = Set.of("redis-trace");

	/** The parts of the JDBC rows, whose run alone is a row run. */
	private static final Set<String> JDBC_ROWS = Set.of("jdbc-shards", "jdbc-handoff");

	/**
	 * The parts of the lock kinds and reactive rows, whose run alone is a row run that
	 * writes its sections into the page.
	 */
	private static final Set<String> KIND_ROWS = Set.of("kinds", "reactive");

	private static final ObjectMapper json = JsonMapper.builder().build();

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Settings defaults = arguments.contains("--quick") ? Settings.quickRun() : Settings.full();
		Settings settings = defaults
			.withRounds(Integer.parseInt(option(arguments, "--rounds", Integer.toString(defaults.rounds()))));
		List<String> defaultLibraries = new ArrayList<>(Libraries.known());
		if (arguments.contains("--with-v1")) {
			defaultLibraries.addAll(EngineV1Libraries.all());
		}
		List<String> libraries = list(arguments, "--libraries", defaultLibraries);
		Set<String> parts = Set.copyOf(list(arguments, "--parts", PARTS));
		List<Integer> jvmCounts = list(arguments, "--jvms", List.of("1", "2")).stream().map(Integer::valueOf).toList();
		check(libraries, parts, jvmCounts);
		Wanted wanted = new Wanted(libraries, arguments.stream().anyMatch((arg) -> arg.startsWith("--libraries=")));
		boolean rowRun = arguments.stream()
			.anyMatch((arg) -> arg.startsWith("--libraries=") || arg.startsWith("--jvms="))
				|| JDBC_ROWS.containsAll(parts) || KIND_ROWS.containsAll(parts)
				|| parts.stream().anyMatch(ON_REQUEST::contains);
		boolean kindSections = KIND_ROWS.containsAll(parts)
				&& arguments.stream().noneMatch((arg) -> arg.startsWith("--libraries=") || arg.startsWith("--jvms="));
		Path results = rowRun ? ROWS : RESULTS;
		if (!Files.isDirectory(Path.of("distributelock-benchmarks"))) {
			throw new IllegalStateException("Run from the repository's root, where distributelock-benchmarks/ is");
		}
		Files.createDirectories(results);
		if (parts.contains("interleaved") && libraries.stream().anyMatch(EngineV1Libraries::is)) {
			EngineV1.buildIfMissing();
		}
		QuietGate.QuietStart quietStart = QuietGate.await(Double.parseDouble(option(arguments, "--quiet-below", "1")),
				Duration.ofSeconds(Long.parseLong(option(arguments, "--quiet-wait", settings.quick() ? "0" : "300"))));
		long started = System.nanoTime();
		String date = RunInfo.now();
		Servers servers = Servers.start();
		Thread stopServers = new Thread(servers::close, "stop-servers");
		Runtime.getRuntime().addShutdownHook(stopServers);
		try {
			Endpoints endpoints = servers.endpoints();
			List<PartLoad> loads = new ArrayList<>();
			part("uncontended", parts, loads,
					() -> runJmh(endpoints, settings, wanted.in(Libraries.uncontended()), results));
			part("interleaved", parts, loads,
					() -> write(results, "interleaved.json",
							new InterleavedHarness(endpoints, settings, results.resolve("interleaved"))
								.run(wanted.in(Libraries.interleaved()))));
			part("commands", parts, loads, () -> write(results, "commands.json",
					new CommandCounter(endpoints, settings.countedCycles()).run(wanted.in(Libraries.uncontended()))));
			part("contended", parts, loads,
					() -> write(results, "contended.json",
							new ContendedHarness(endpoints, settings, results.resolve("contended"), jvmCounts)
								.run(wanted.in(Libraries.contended()))));
			part("scale", parts, loads, () -> write(results, "scale.json",
					new ScaleHarness(endpoints, settings, results.resolve("scale")).run(wanted.in(Libraries.scale()))));
			part("jdbc-shards", parts, loads, () -> write(results, "jdbc-shards.json",
					new ShardsHarness(endpoints, settings, results.resolve("jdbc-shards")).run()));
			part("jdbc-handoff", parts, loads, () -> write(results, "jdbc-handoff.json",
					new HandOffHarness(endpoints, settings, results.resolve("jdbc-handoff")).run()));
			part("redis-trace", parts, loads, () -> write(results, "redis-trace.json",
					new RedisHandOffTrace(endpoints, settings, results.resolve("redis-trace")).run()));
			Settings kindSettings = settings.forKindRows();
			part("kinds", parts, loads, () -> {
				write(results, "kinds-interleaved.json",
						new InterleavedHarness(endpoints, kindSettings, results.resolve("kinds"))
							.run(wanted.in(KindLibraries.uncontendedKinds())));
				write(results, "kinds-contended.json",
						new ContendedHarness(endpoints, kindSettings, results.resolve("kinds"), List.of(1))
							.run(wanted.in(KindLibraries.contendedKinds())));
			});
			part("reactive", parts, loads, () -> {
				write(results, "reactive-interleaved.json",
						new InterleavedHarness(endpoints, kindSettings, results.resolve("reactive"))
							.run(wanted.in(KindLibraries.reactive())));
				write(results, "reactive-contended.json",
						new ContendedHarness(endpoints, kindSettings, results.resolve("reactive"), List.of(1))
							.run(wanted.in(KindLibraries.reactive())));
				write(results, "reactive-waiters.json",
						new WaitersHarness(endpoints, kindSettings, results.resolve("reactive")).run());
			});
			long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
			RunInfo runInfo = new RunInfo(date, settings.quick() ? "quick" : "full", settings,
					RunInfo.describeMachine(), RunInfo.describeVersions(endpoints), String.join(" ", arguments),
					quietStart, loads, LoadAverage.now().toString(), seconds);
			write(results, "run.json", runInfo);
			// The run of each of these parts, for its own section: one of them may be
			// re-run alone.
			for (String part : KIND_ROWS) {
				if (parts.contains(part)) {
					write(results, part + "-run.json", runInfo);
				}
			}
		}
		finally {
			servers.close();
			Runtime.getRuntime().removeShutdownHook(stopServers);
		}
		if (kindSections) {
			Report.writeKindSections(results, DOCS);
			logger.info("Kind rows done in " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)
					+ " s; results in " + results + "; wrote their sections into " + DOCS.resolve(Report.PAGE));
		}
		else if (rowRun) {
			logger.info("Row run done in " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)
					+ " s; results in " + results + " (the page is left as it is)");
		}
		else {
			Report.write(results, DOCS);
			logger.info("Done in " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s; wrote "
					+ DOCS.resolve(Report.PAGE));
		}
		System.exit(0);
	}

	/** Runs a part if it was asked for, with the load average before and after it. */
	private static void part(String name, Set<String> parts, List<PartLoad> loads, Part part) throws Exception {
		if (parts.contains(name)) {
			String atStart = LoadAverage.now().toString();
			part.run();
			loads.add(new PartLoad(name, atStart, LoadAverage.now().toString()));
		}
	}

	private static void check(List<String> libraries, Set<String> parts, List<Integer> jvmCounts) {
		for (String library : libraries) {
			if (!Libraries.known().contains(library) && !EngineV1Libraries.is(library)) {
				throw new IllegalArgumentException("Unknown library '" + library + "' in --libraries; known: "
						+ Libraries.known() + " and engine v1's " + EngineV1Libraries.all());
			}
		}
		for (String part : parts) {
			if (!PARTS.contains(part) && !ON_REQUEST.contains(part)) {
				throw new IllegalArgumentException(
						"Unknown part '" + part + "' in --parts; known: " + PARTS + " and, when named, " + ON_REQUEST);
			}
		}
		for (int jvms : jvmCounts) {
			if (!ContendedHarness.JVM_COUNTS.contains(jvms)) {
				throw new IllegalArgumentException("--jvms takes " + ContendedHarness.JVM_COUNTS
						+ " (1 JVM x 4 threads, 2 JVMs x 2 threads), was " + jvms);
			}
		}
	}

	private static void runJmh(Endpoints endpoints, Settings settings, List<String> libraries, Path results)
			throws Exception {
		List<String> jvmArgs = new ArrayList<>(List.of(endpoints.asJvmArgs()));
		jvmArgs.add("-Xmx1g");
		ChainedOptionsBuilder options = new OptionsBuilder().include(UncontendedBenchmark.class.getName())
			.param("library", libraries.toArray(String[]::new))
			.forks(1)
			.warmupIterations(settings.warmupIterations())
			.warmupTime(TimeValue.milliseconds(settings.iterationTime().toMillis()))
			.measurementIterations(settings.measurementIterations())
			.measurementTime(TimeValue.milliseconds(settings.iterationTime().toMillis()))
			.timeout(TimeValue.minutes(2))
			.jvmArgsAppend(jvmArgs.toArray(String[]::new))
			.resultFormat(ResultFormatType.JSON)
			.result(results.resolve("jmh.json").toString());
		new Runner(options.build()).run();
	}

	private static void write(Path results, String file, Object value) {
		json.writerWithDefaultPrettyPrinter().writeValue(results.resolve(file).toFile(), value);
	}

	private static List<String> list(List<String> arguments, String name, List<String> fallback) {
		String value = option(arguments, name, "");
		return value.isEmpty() ? fallback : List.of(value.split(","));
	}

	private static String option(List<String> arguments, String name, String fallback) {
		return arguments.stream()
			.filter((argument) -> argument.startsWith(name + "="))
			.map((argument) -> argument.substring(name.length() + 1))
			.findFirst()
			.orElse(fallback);
	}

	/**
	 * The libraries asked for.
	 *
	 * @param names their names
	 * @param inOrderGiven whether they were given with {@code --libraries}: a row run
	 * measures them in the order given, a full run in each part's order
	 */
	private record Wanted(List<String> names, boolean inOrderGiven) {

		List<String> in(List<String> part) {
			return (this.inOrderGiven ? this.names.stream().filter(part::contains)
					: part.stream().filter(this.names::contains))
				.toList();
		}

	}

	/** A part of the run. */
	@FunctionalInterface
	private interface Part {

		void run() throws Exception;

	}

}
