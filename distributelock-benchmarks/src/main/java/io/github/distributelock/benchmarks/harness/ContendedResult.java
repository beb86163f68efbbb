package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one contended run measured, summed over its JVMs; for the page, the round of
 * median throughput, with the range of all rounds.
 *
 * @param library the library
 * @param jvms how many JVMs competed
 * @param threadsPerJvm how many threads each JVM ran
 * @param acquisitionsPerSecond acquisitions per second in the measured window
 * @param handOffP50Micros median time from a release to the next holder's acquire
 * @param handOffP99Micros 99th percentile of the same
 * @param handOffs how many hand-offs were timed
 * @param timeouts waits of 2 s that ended without the lock
 * @param overlaps acquisitions while another holder was still marked: must be 0
 * @param errors threads that stopped on an exception
 * @param error the last exception, if any
 * @param rounds how many rounds were run
 * @param lowestPerSecond the lowest throughput of the rounds
 * @param highestPerSecond the highest throughput of the rounds
 */
record ContendedResult(String library, int jvms, int threadsPerJvm, double acquisitionsPerSecond,
		double handOffP50Micros, double handOffP99Micros, long handOffs, long timeouts, long overlaps, long errors,
		String error, int rounds, double lowestPerSecond, double highestPerSecond) {

	/**
	 * The round of median throughput, carrying the range of all rounds and, summed over
	 * all of them, the timeouts, overlaps and errors: a fault in any round must show.
	 */
	static ContendedResult median(List<ContendedResult> rounds) {
		List<ContendedResult> sorted = rounds.stream()
			.sorted(Comparator.comparingDouble(ContendedResult::acquisitionsPerSecond))
			.toList();
		ContendedResult median = sorted.get(sorted.size() / 2);
		String error = rounds.stream()
			.map(ContendedResult::error)
			.filter((message) -> !message.isBlank())
			.findFirst()
			.orElse("");
		return new ContendedResult(median.library, median.jvms, median.threadsPerJvm, median.acquisitionsPerSecond,
				median.handOffP50Micros, median.handOffP99Micros, median.handOffs,
				rounds.stream().mapToLong(ContendedResult::timeouts).sum(),
				rounds.stream().mapToLong(ContendedResult::overlaps).sum(),
				rounds.stream().mapToLong(ContendedResult::errors).sum(), error, rounds.size(),
				sorted.get(0).acquisitionsPerSecond, sorted.get(sorted.size() - 1).acquisitionsPerSecond);
	}

	static ContendedResult of(String library, int jvms, int threads, Duration measured, List<Path> files)
			throws IOException {
		long acquisitions = 0;
		long timeouts = 0;
		long overlaps = 0;
		long errors = 0;
		String error = "";
		List<Long> handOffs = new ArrayList<>();
		for (Path file : files) {
			List<String> lines = Files.readAllLines(file);
			String[] counts = lines.get(0).split(" ");
			acquisitions += Long.parseLong(counts[0]);
			timeouts += Long.parseLong(counts[1]);
			overlaps += Long.parseLong(counts[2]);
			errors += Long.parseLong(counts[3]);
			if (!lines.get(1).isBlank()) {
				error = lines.get(1);
			}
			for (String line : lines.subList(2, lines.size())) {
				handOffs.add(Long.parseLong(line));
			}
		}
		long[] sorted = Percentiles.sorted(handOffs.stream().mapToLong(Long::longValue).toArray());
		double perSecond = acquisitions / (measured.toNanos() / 1e9);
		return new ContendedResult(library, jvms, threads, perSecond, Percentiles.of(sorted, 50) / 1000,
				Percentiles.of(sorted, 99) / 1000, sorted.length, timeouts, overlaps, errors, error, 1, perSecond,
				perSecond);
	}

}
