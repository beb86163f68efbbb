package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one contended run of one library measured in one round, summed over its JVMs.
 *
 * @param round the round, from 1
 * @param acquisitionsPerSecond acquisitions per second in the measured window
 * @param handOffP50Micros median time from a release to the next holder's acquire
 * @param handOffP99Micros 99th percentile of the same
 * @param handOffs how many hand-offs were timed
 * @param timeouts waits of 2 s that ended without the lock
 * @param overlaps acquisitions while another holder was still marked: must be 0
 * @param errors threads that stopped on an exception
 * @param error the last exception, if any
 * @param cpuMicrosPerAcquisition CPU time of the run's JVMs in the measured window, per
 * acquisition
 * @param warmupMillis how long the run warmed up before its measured window: until the
 * JIT compilers of all its JVMs had settled, or the longest warm-up allowed
 * @param jitSettled whether they had settled
 * @param busiestJvmShare the share of the acquisitions that the busiest JVM made: 1 for a
 * single JVM, 0.5 for two JVMs served alike, near 1 where one JVM keeps the lock
 * @param loadBefore the load average just before the run's JVMs started
 * @param loadAfter the load average just after they ended
 */
public record ContendedRound(int round, double acquisitionsPerSecond, double handOffP50Micros, double handOffP99Micros,
		long handOffs, long timeouts, long overlaps, long errors, String error, double cpuMicrosPerAcquisition,
		long warmupMillis, boolean jitSettled, double busiestJvmShare, String loadBefore, String loadAfter) {

	/** How a worker's file marks a hand-off from a holder of another JVM. */
	static final String ACROSS_JVMS = "x";

	/**
	 * Reads the result files of a run's JVMs, as {@link ContendedWorker} writes them.
	 * @param round the round
	 * @param measured the measured window
	 * @param files one per JVM
	 * @param loadBefore the load average before the run
	 * @param loadAfter the load average after it
	 * @return the run's figures
	 * @throws IOException if a file cannot be read
	 */
	/**
	 * The hand-offs of the run from a holder of one JVM to a holder of another, in
	 * nanoseconds, sorted.
	 * @param files one per JVM
	 * @return the hand-offs across JVMs
	 * @throws IOException if a file cannot be read
	 */
	static long[] handOffsAcrossJvms(List<Path> files) throws IOException {
		List<Long> handOffs = new ArrayList<>();
		for (Path file : files) {
			List<String> lines = Files.readAllLines(file);
			for (String line : lines.subList(2, lines.size())) {
				if (line.startsWith(ACROSS_JVMS)) {
					handOffs.add(handOffNanos(line));
				}
			}
		}
		return Percentiles.sorted(handOffs.stream().mapToLong(Long::longValue).toArray());
	}

	private static long handOffNanos(String line) {
		return Long.parseLong(line.startsWith(ACROSS_JVMS) ? line.substring(ACROSS_JVMS.length()) : line);
	}

	static ContendedRound read(int round, Duration measured, List<Path> files, String loadBefore, String loadAfter)
			throws IOException {
		long acquisitions = 0;
		long timeouts = 0;
		long overlaps = 0;
		long errors = 0;
		long cpuNanos = 0;
		long warmupMillis = 0;
		boolean settled = true;
		long busiest = 0;
		String error = "";
		List<Long> handOffs = new ArrayList<>();
		for (Path file : files) {
			List<String> lines = Files.readAllLines(file);
			String[] counts = lines.get(0).split(" ");
			acquisitions += Long.parseLong(counts[0]);
			busiest = Math.max(busiest, Long.parseLong(counts[0]));
			timeouts += Long.parseLong(counts[1]);
			overlaps += Long.parseLong(counts[2]);
			errors += Long.parseLong(counts[3]);
			cpuNanos += Long.parseLong(counts[4]);
			long warmup = Long.parseLong(counts[5]);
			warmupMillis = Math.max(warmupMillis, Math.abs(warmup));
			settled &= warmup > 0;
			if (!lines.get(1).isBlank()) {
				error = lines.get(1);
			}
			for (String line : lines.subList(2, lines.size())) {
				handOffs.add(handOffNanos(line));
			}
		}
		long[] sorted = Percentiles.sorted(handOffs.stream().mapToLong(Long::longValue).toArray());
		return new ContendedRound(round, acquisitions / (measured.toNanos() / 1e9), Percentiles.of(sorted, 50) / 1000,
				Percentiles.of(sorted, 99) / 1000, sorted.length, timeouts, overlaps, errors, error,
				(acquisitions > 0) ? cpuNanos / 1e3 / acquisitions : Double.NaN, warmupMillis, settled,
				(acquisitions > 0) ? (double) busiest / acquisitions : Double.NaN, loadBefore, loadAfter);
	}

}
