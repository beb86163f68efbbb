package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.distributelock.benchmarks.harness.Libraries;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Reads the rows of an interleaved or contended part of the lock kinds and reactive
 * sections, and judges their targets in every round, each round pairing the two rows'
 * figures of that round.
 */
final class RowFigures {

	private RowFigures() {
	}

	/** The rows of a part ({@code results} of its JSON), by library. */
	static Map<String, JsonNode> byLibrary(@Nullable JsonNode part) {
		Map<String, JsonNode> rows = new LinkedHashMap<>();
		if (part != null) {
			for (JsonNode row : part.path("results")) {
				rows.put(row.path("library").asString(), row);
			}
		}
		return rows;
	}

	/** A figure of each round of a row, by round. */
	static Map<Integer, Double> rounds(@Nullable JsonNode row, String field) {
		Map<Integer, Double> rounds = new TreeMap<>();
		if (row != null) {
			for (JsonNode round : row.path("rounds")) {
				rounds.put(round.path("round").asInt(), Results.number(round.path(field)));
			}
		}
		return rounds;
	}

	/** The figure of each round, as the page gives them: {@code 101 / 98 / 105}. */
	static String perRound(@Nullable JsonNode row, String field) {
		List<String> figures = new ArrayList<>();
		rounds(row, field).values().forEach((value) -> figures.add(Markdown.micros(value)));
		return String.join(" / ", figures);
	}

	/** Each round's ratio of two rows' figure: {@code 1.05x / 1.12x / 1.08x}. */
	static String perRoundRatio(JsonNode row, JsonNode base, String field) {
		Map<Integer, Double> theirs = rounds(base, field);
		List<String> ratios = new ArrayList<>();
		rounds(row, field).forEach(
				(round, value) -> ratios.add(String.format("%.2fx", value / theirs.getOrDefault(round, Double.NaN))));
		return String.join(" / ", ratios);
	}

	/** The load average at the start and end of each round of a part. */
	static String loads(@Nullable JsonNode part) {
		List<String> loads = new ArrayList<>();
		if (part != null) {
			for (JsonNode round : part.path("rounds")) {
				loads.add("round " + round.path("round").asInt() + ": " + round.path("atStart").asString() + " → "
						+ round.path("atEnd").asString());
			}
		}
		return loads.isEmpty() ? "not recorded" : String.join("; ", loads);
	}

	/**
	 * A target on the ratio of two rows' figure, judged in each round and at the median.
	 * @param target what the target says
	 * @param row the row judged
	 * @param base the row it is compared with
	 * @param field the figure, e.g. {@code p50Micros}
	 * @param limit the ratio allowed
	 * @param atMost whether the ratio must be at most the limit (latency) or at least it
	 * (throughput)
	 * @return the row of target, measured and verdict
	 */
	static String[] ratioTarget(String target, @Nullable JsonNode row, @Nullable JsonNode base, String field,
			double limit, boolean atMost) {
		if (row == null || base == null) {
			return new String[] { target, "not measured: " + ((row == null) ? "its row" : "the row it is compared with")
					+ " was not in this run", "**not measured**" };
		}
		double median = Results.number(row.path(field)) / Results.number(base.path(field));
		Map<Integer, Double> ours = rounds(row, field);
		Map<Integer, Double> theirs = rounds(base, field);
		TreeSet<Integer> numbers = new TreeSet<>(ours.keySet());
		numbers.addAll(theirs.keySet());
		List<String> figures = new ArrayList<>();
		List<Boolean> met = new ArrayList<>();
		for (int round : numbers) {
			double ratio = ours.getOrDefault(round, Double.NaN) / theirs.getOrDefault(round, Double.NaN);
			figures.add(String.format("%.2fx", ratio));
			met.add(atMost ? ratio <= limit : ratio >= limit);
		}
		String unit = field.equals("acquisitionsPerSecond") ? "/s" : " us";
		String measured = String.format("%s%s vs %s%s: %.2fx (medians; rounds: %s)",
				Markdown.micros(Results.number(row.path(field))), unit,
				Markdown.micros(Results.number(base.path(field))), unit, median, String.join(", ", figures));
		return new String[] { target, measured, new Verdict(atMost ? median <= limit : median >= limit, met).text() };
	}

	/**
	 * Rows of a contended part's table: every round's throughput and load, and the median
	 * round's figures.
	 */
	static List<String[]> contendedRows(@Nullable JsonNode part) {
		List<String[]> rows = new ArrayList<>();
		for (JsonNode row : byLibrary(part).values()) {
			String library = row.path("library").asString();
			List<String> rounds = new ArrayList<>();
			for (JsonNode round : row.path("rounds")) {
				rounds.add(String.format("%,.0f (%s → %s%s)", Results.number(round.path("acquisitionsPerSecond")),
						round.path("loadBefore").asString(), round.path("loadAfter").asString(),
						round.path("jitSettled").asBoolean() ? "" : ", JIT not settled"));
			}
			rows.add(new String[] { Libraries.label(library), Markdown.code(library), String.join("; ", rounds),
					Markdown.perSecond(Results.number(row.path("acquisitionsPerSecond"))),
					Markdown.millis(Results.number(row.path("handOffP50Micros"))),
					Markdown.micros(Results.number(row.path("cpuMicrosPerAcquisition"))), row.path("timeouts").asLong()
							+ " / " + row.path("overlaps").asLong() + " / " + row.path("errors").asLong() });
		}
		return rows;
	}

	static final List<String> CONTENDED_HEADER = List.of("library", "name",
			"acquisitions/s per round (load average before → after)", "median acquisitions/s",
			"hand-off p50 ms (median round)", "CPU µs per acquisition (median round)",
			"timeouts / overlaps / errors (all rounds)");

}
