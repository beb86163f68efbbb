package io.github.distributelock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.harness.CommandCounter;
import io.github.distributelock.benchmarks.harness.ContendedHarness;
import io.github.distributelock.benchmarks.harness.InterleavedHarness;
import io.github.distributelock.benchmarks.harness.Libraries;
import io.github.distributelock.benchmarks.harness.RunInfo;
import io.github.distributelock.benchmarks.harness.ScaleHarness;
import io.github.distributelock.benchmarks.harness.Settings;
import io.github.distributelock.benchmarks.harness.UncontendedBenchmark;
import io.github.distributelock.benchmarks.library.Endpoints;
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
 * Runs every benchmark against one set of servers and writes the page: starts Redis,
 * ZooKeeper and PostgreSQL on loopback ports, runs the JMH uncontended benchmarks, counts
 * store commands, runs the contended and scale harnesses, stops the servers (also on
 * failure or Ctrl-C), then writes {@code docs/benchmarks.md} and its chart with
 * {@link Report}. Run from the repository's root.
 * <p>
 * Options: {@code --quick} (a short run that checks everything works),
 * {@code --libraries=a,b} (only these),
 * {@code --parts=uncontended,interleaved,commands,contended,scale} (only these parts; the
 * page is written from whatever results exist).
 */
public final class BenchmarkMain {

	private static final Log logger = LogFactory.getLog(BenchmarkMain.class);

	static final Path RESULTS = Path.of("distributelock-benchmarks", "target", "benchmark-results");

	static final Path DOCS = Path.of("docs");

	private static final ObjectMapper json = JsonMapper.builder().build();

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Settings settings = arguments.contains("--quick") ? Settings.quickRun() : Settings.full();
		List<String> libraries = option(arguments, "--libraries", Libraries.all());
		Set<String> parts = Set.copyOf(
				option(arguments, "--parts", List.of("uncontended", "interleaved", "commands", "contended", "scale")));
		if (!Files.isDirectory(Path.of("distributelock-benchmarks"))) {
			throw new IllegalStateException("Run from the repository's root, where distributelock-benchmarks/ is");
		}
		Files.createDirectories(RESULTS);
		long started = System.nanoTime();
		String date = RunInfo.now();
		String loadBefore = RunInfo.loadAverage();
		Servers servers = Servers.start();
		Thread stopServers = new Thread(servers::close, "stop-servers");
		Runtime.getRuntime().addShutdownHook(stopServers);
		try {
			Endpoints endpoints = servers.endpoints();
			if (parts.contains("uncontended")) {
				runJmh(endpoints, settings, libraries);
			}
			if (parts.contains("interleaved")) {
				write("interleaved.json",
						new InterleavedHarness(endpoints, settings, RESULTS.resolve("interleaved")).run(libraries));
			}
			if (parts.contains("commands")) {
				write("commands.json", new CommandCounter(endpoints, settings.countedCycles()).run(libraries));
			}
			if (parts.contains("contended")) {
				write("contended.json", new ContendedHarness(endpoints, settings, RESULTS.resolve("contended"))
					.run(only(Libraries.contended(), libraries)));
			}
			if (parts.contains("scale")) {
				write("scale.json", new ScaleHarness(endpoints, settings, RESULTS.resolve("scale"))
					.run(only(Libraries.scale(), libraries)));
			}
			long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
			write("run.json",
					new RunInfo(date, settings.quick() ? "quick" : "full", settings, RunInfo.describeMachine(),
							RunInfo.describeVersions(endpoints), loadBefore, RunInfo.loadAverage(), seconds));
		}
		finally {
			servers.close();
			Runtime.getRuntime().removeShutdownHook(stopServers);
		}
		Report.write(RESULTS, DOCS);
		logger.info("Done in " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s; wrote "
				+ DOCS.resolve(Report.PAGE));
		System.exit(0);
	}

	private static void runJmh(Endpoints endpoints, Settings settings, List<String> libraries) throws Exception {
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
			.result(RESULTS.resolve("jmh.json").toString());
		new Runner(options.build()).run();
	}

	private static void write(String file, Object value) {
		json.writerWithDefaultPrettyPrinter().writeValue(RESULTS.resolve(file).toFile(), value);
	}

	private static List<String> only(List<String> names, List<String> wanted) {
		return names.stream().filter(wanted::contains).toList();
	}

	private static List<String> option(List<String> arguments, String name, List<String> fallback) {
		return arguments.stream()
			.filter((argument) -> argument.startsWith(name + "="))
			.map((argument) -> List.of(argument.substring(name.length() + 1).split(",")))
			.findFirst()
			.orElse(fallback);
	}

}
