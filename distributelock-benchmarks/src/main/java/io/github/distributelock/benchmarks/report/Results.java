package io.github.distributelock.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

	final List<JsonNode> scale = new ArrayList<>();

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
			for (JsonNode one : interleaved) {
				Latency latency = new Latency();
				latency.p50 = number(one.path("p50Micros"));
				latency.p99 = number(one.path("p99Micros"));
				latency.mean = number(one.path("meanMicros"));
				results.interleaved.put(one.path("library").asString(), latency);
			}
		}
		addAll(results.commands, read(directory.resolve("commands.json")));
		addAll(results.contended, read(directory.resolve("contended.json")));
		addAll(results.scale, read(directory.resolve("scale.json")));
		results.run = read(directory.resolve("run.json"));
		return results;
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
	 * One library's uncontended figures, in microseconds and operations per second.
	 */
	static final class Latency {

		double p50 = Double.NaN;

		double p99 = Double.NaN;

		double mean = Double.NaN;

		double opsPerSecond = Double.NaN;

	}

}
