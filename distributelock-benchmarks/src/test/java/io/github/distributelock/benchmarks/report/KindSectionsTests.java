package io.github.distributelock.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the lock kinds and reactive sections: their targets are judged in every
 * round, and a row run writes them into the page without touching its other sections.
 */
class KindSectionsTests {

	private static final String PAGE = """
			# Benchmarks

			## Peer configurations

			old table

			## Contended: one key

			kept

			## Analysis

			notes
			""";

	@TempDir
	Path results;

	@TempDir
	Path docs;

	@Test
	void kindTargetMetOnlyInTheMedianIsNotMet() throws IOException {
		// The medians give 1.10x; round 2 gives 1.30x.
		writeInterleaved("redis-ours-handle", 100, 100, 100);
		writeInterleaved("redis-ours-fair", 110, 130, 105);
		String page = sections();
		assertThat(page).contains("| Redis, fair lock: uncontended p50 within 1.2x of our exclusive lock | "
				+ "110 us vs 100 us: 1.10x (medians; rounds: 1.10x, 1.30x, 1.05x) | "
				+ "**not met**: met in the median only, in 2 of 3 rounds |");
	}

	@Test
	void kindTargetMetInEveryRoundIsMet() throws IOException {
		writeInterleaved("redis-ours-handle", 100, 100, 100);
		writeInterleaved("redis-ours-read", 110, 115, 105);
		assertThat(sections()).contains("1.10x (medians; rounds: 1.10x, 1.15x, 1.05x) | met in every round (3 of 3) |");
	}

	@Test
	void rowRunReplacesPeerConfigurationsAndAddsSectionsBeforeTheAnalysis() throws IOException {
		writeInterleaved("redis-ours-handle", 100, 100, 100);
		String page = sections();
		assertThat(page).doesNotContain("old table")
			.contains("`redis-redisson-fair`")
			.contains("## Contended: one key\n\nkept\n");
		assertThat(page.indexOf("## Lock kinds")).isGreaterThan(page.indexOf("kept"))
			.isLessThan(page.indexOf("## Analysis"));
		// A second row run replaces the section instead of adding another.
		Report.writeKindSections(this.results, this.docs);
		String again = Files.readString(this.docs.resolve(Report.PAGE));
		assertThat(again.split("## Lock kinds", -1)).hasSize(2);
		assertThat(again).isEqualTo(page);
	}

	@Test
	void aRunPinnedToOneCoreSaysSoAndAnUnpinnedRunSaysItsVerdictsAreNotTheJudgedOnes() throws IOException {
		writeInterleaved("redis-ours-handle", 100, 100, 100);
		writeRun(1);
		assertThat(sections()).contains("1 core), on a machine")
			.contains("These rows are measured **pinned to one core**")
			.doesNotContain("not pinned");
		writeRun(2);
		assertThat(sections()).contains("2 cores), on a machine")
			.contains("**This run was not pinned** (the harness saw 2 cores)")
			.doesNotContain("measured **pinned");
	}

	private void writeRun(int cores) throws IOException {
		Files.writeString(this.results.resolve("kinds-run.json"), """
				{"date": "2026-12-01T12:00:00Z", "seconds": 480, "arguments": "--parts=kinds", "mode": "full",
				 "versions": {"distributelock": "1.0.0-SNAPSHOT"}, "machine": {"cores": "%d"},
				 "quietStart": {"quiet": true, "loadFound": "1.0 1.0 1.0"}, "parts": []}""".formatted(cores));
	}

	private String sections() throws IOException {
		Files.writeString(this.docs.resolve(Report.PAGE), PAGE);
		Report.writeKindSections(this.results, this.docs);
		return Files.readString(this.docs.resolve(Report.PAGE));
	}

	private final StringBuilder rows = new StringBuilder();

	private void writeInterleaved(String library, double... p50s) throws IOException {
		StringBuilder rounds = new StringBuilder();
		for (int i = 0; i < p50s.length; i++) {
			rounds.append((i > 0) ? "," : "").append("""
					{"library": "%s", "round": %d, "samples": 100, "p50Micros": %s, "p99Micros": 300, \
					"meanMicros": 120}""".formatted(library, i + 1, p50s[i]));
		}
		double[] sorted = p50s.clone();
		java.util.Arrays.sort(sorted);
		this.rows.append(this.rows.isEmpty() ? "" : ",")
			.append("""
					{"library": "%s", "p50Micros": %s, "p99Micros": 300, "meanMicros": 120, "rounds": [%s]}"""
				.formatted(library, sorted[sorted.length / 2], rounds));
		Files.writeString(this.results.resolve("kinds-interleaved.json"),
				"{\"rounds\": [], \"results\": [" + this.rows + "]}");
	}

}
