package io.github.distributelock.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EngineV1Tables}: each round pairs today's row with engine v1's of the
 * same round, and the 3% bound must hold in every round.
 */
class EngineV1TablesTests {

	@TempDir
	Path results;

	@Test
	void withinThreePercentInEveryRoundIsMet() throws IOException {
		writeInterleaved(round("redis-v1-handle", 100, 100), round("redis-ours-handle", 102, 103));
		assertThat(page()).doesNotContain("not met").contains("| 1.020 · 1.030 | met (2 of 2) |");
	}

	@Test
	void overThreePercentInOneRoundIsNotMet() throws IOException {
		writeInterleaved(round("redis-v1-handle", 100, 100), round("redis-ours-handle", 102, 105));
		assertThat(page()).contains("| 1.020 · 1.050 | **not met**: 1 of 2 rounds |");
	}

	@Test
	void noEngineV1RowsWriteNothing() throws IOException {
		writeInterleaved(round("redis-floor", 100, 100), round("redis-ours-handle", 102, 105));
		assertThat(page()).isEmpty();
	}

	private String page() throws IOException {
		Markdown page = new Markdown();
		EngineV1Tables.write(Results.load(this.results), page);
		return page.toString();
	}

	private void writeInterleaved(String first, String second) throws IOException {
		Files.writeString(this.results.resolve("interleaved.json"), """
				{"rounds": [], "results": [%s, %s]}""".formatted(first, second));
	}

	private static String round(String library, double first, double second) {
		return """
				{"library": "%s", "p50Micros": %s, "p99Micros": 300, "meanMicros": 120, "rounds": [
				  {"library": "%s", "round": 1, "samples": 100, "p50Micros": %s, "p99Micros": 300, "meanMicros": 120},
				  {"library": "%s", "round": 2, "samples": 100, "p50Micros": %s, "p99Micros": 300, "meanMicros": 120}]}"""
			.formatted(library, second, library, first, library, second);
	}

}
