package io.github.distributelock.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The result files of one run, read back for the page: JMH's JSON and the harnesses'.
 */
final class Results {

	private static final ObjectMapper json = JsonMapper.builder().build();

	final Map<String, Latency> uncontended = new LinkedHashMap<>();

	final Map<String, Latency> interleaved = new LinkedHashMap<>();

	final List<JsonNode> commands = new ArrayList<>();

	final List<JsonNode> contended = new ArrayList<>();

	/** The load average at the start and end of each interleaved round. */
	final List<JsonNode> interleavedRounds = new ArrayList<>();

	/** The load average at the start and end of each contended round. */
	final List<JsonNode> contendedRounds = new ArrayList<>();

	final List<JsonNode> scale = new ArrayList<>();

	/** The JDBC shards row ({@code jdbc-shards.json}), if it ran. */
	@Nullable JsonNode jdbcShards;

	/** The JDBC hand-off rows ({@code jdbc-handoff.json}), if they ran. */
	@Nullable JsonNode jdbcHandOff;

	/** The lock kinds' interleaved rows ({@code kinds-interleaved.json}), if they ran. */
	@Nullable JsonNode kindsInterleaved;

	/** The lock kinds' contended rows ({@code kinds-contended.json}), if they ran. */
	@Nullable JsonNode kindsContended;

	/** The reactive interleaved rows ({@code reactive-interleaved.json}), if they ran. */
	@Nullable JsonNode reactiveInterleaved;

	/** The reactive contended rows ({@code reactive-contended.json}), if they ran. */
	@Nullable JsonNode reactiveContended;

	/** The many-waiters rows ({@code reactive-waiters.json}), if they ran. */
	@Nullable JsonNode reactiveWaiters;

	/** The run that measured the lock kinds' rows ({@code kinds-run.json}). */
	@Nullable JsonNode kindsRun;

	/** The run that measured the reactive rows ({@code reactive-run.json}). */
	@Nullable JsonNode reactiveRun;

	@Nullable JsonNode run;

	static Results load(Path directory) throws IOException {
		Results results = new Results();
		JsonNode jmh = read(directory.resolve("jmh.json"));
		if (jmh != null) {
			for (JsonNode benchmark : jmh) {
				String library = benchmark.path("params").path("library").asString();
				Latency latency = results.uncontended.computeIfAbsent(library, (name) -> new Latency());
				JsonNode metric = benchmark.path("primaryMetric");
				if (benchmark.path("mode").asString().equals("sample")) {
					latency.p50 = metric.path("scorePercentiles").path("50.0").asDouble();
					latency.p99 = metric.path("scorePercentiles").path("99.0").asDouble();
					latency.mean = metric.path("score").asDouble();
				}
				else {
					// ops/us, as the benchmark's output unit is microseconds
					latency.opsPerSecond = metric.path("score").asDouble() * 1e6;
				}
			}
		}
		JsonNode interleaved = read(directory.resolve("interleaved.json"));
		if (interleaved != null) {
			addAll(results.interleavedRounds, interleaved.path("rounds"));
			for (JsonNode one : interleaved.path("results")) {
				Latency latency = latency(one);
				for (JsonNode round : one.path("rounds")) {
					latency.rounds.put(round.path("round").asInt(), latency(round));
				}
				results.interleaved.put(one.path("library").asString(), latency);
			}
		}
		addAll(results.commands, read(directory.resolve("commands.json")));
		JsonNode contended = read(directory.resolve("contended.json"));
		if (contended != null) {
			addAll(results.contendedRounds, contended.path("rounds"));
			addAll(results.contended, contended.path("results"));
		}
		addAll(results.scale, read(directory.resolve("scale.json")));
		results.jdbcShards = read(directory.resolve("jdbc-shards.json"));
		results.jdbcHandOff = read(directory.resolve("jdbc-handoff.json"));
		results.kindsInterleaved = read(directory.resolve("kinds-interleaved.json"));
		results.kindsContended = read(directory.resolve("kinds-contended.json"));
		results.reactiveInterleaved = read(directory.resolve("reactive-interleaved.json"));
		results.reactiveContended = read(directory.resolve("reactive-contended.json"));
		results.reactiveWaiters = read(directory.resolve("reactive-waiters.json"));
		results.run = read(directory.resolve("run.json"));
		results.kindsRun = read(directory.resolve("kinds-run.json"));
		results.reactiveRun = read(directory.resolve("reactive-run.json"));
		return results;
	}

	private static Latency latency(JsonNode node) {
		Latency latency = new Latency();
		latency.p50 = number(node.path("p50Micros"));
		latency.p99 = number(node.path("p99Micros"));
		latency.mean = number(node.path("meanMicros"));
		return latency;
	}

	private static void addAll(List<JsonNode> list, @Nullable JsonNode array) {
		if (array != null) {
			array.forEach(list::add);
		}
	}

	private static @Nullable JsonNode read(Path file) throws IOException {
		if (!Files.exists(file)) {
			return null;
		}
		return json.readTree(file.toFile());
	}

	/** A number of the harnesses' JSON, where Jackson writes {@code NaN} as a string. */
	static double number(JsonNode node) {
		if (node.isString()) {
			return Double.parseDouble(node.asString());
		}
		return node.isNumber() ? node.asDouble() : Double.NaN;
	}

	/** JMH's figures of a library. */
	@Nullable Latency latency(String library) {
		return this.uncontended.get(library);
	}

	/** The interleaved run's figures of a library, or JMH's if it has none. */
	@Nullable Latency paired(String library) {
		Latency latency = this.interleaved.get(library);
		return (latency != null) ? latency : this.uncontended.get(library);
	}

	@Nullable JsonNode contended(String library, int jvms) {
		return this.contended.stream()
			.filter((node) -> node.path("library").asString().equals(library) && node.path("jvms").asInt() == jvms)
			.findFirst()
			.orElse(null);
	}

	/**
	 * The rounds of a contended row, by round number.
	 * @param row a row of the contended results
	 * @return its rounds
	 */
	static Map<Integer, JsonNode> rounds(JsonNode row) {
		Map<Integer, JsonNode> rounds = new TreeMap<>();
		for (JsonNode round : row.path("rounds")) {
			rounds.put(round.path("round").asInt(), round);
		}
		return rounds;
	}

	/**
	 * One library's uncontended figures, in microseconds and operations per second: the
	 * median of the rounds, and each round's own where the run had rounds.
	 */
	static final class Latency {

		final Map<Integer, Latency> rounds = new TreeMap<>();

		double p50 = Double.NaN;

		double p99 = Double.NaN;

		double mean = Double.NaN;

		double opsPerSecond = Double.NaN;

	}

}
