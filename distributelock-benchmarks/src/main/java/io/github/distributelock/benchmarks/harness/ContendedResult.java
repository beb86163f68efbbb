package io.github.distributelock.benchmarks.harness;

import java.util.Comparator;
import java.util.List;

/**
 * A row of the contended table: one library in one shape, with every round it ran and,
 * for the table, the figures of its round of median throughput.
 *
 * @param library the library
 * @param jvms how many JVMs competed
 * @param threadsPerJvm how many threads each JVM ran
 * @param acquisitionsPerSecond the median round's acquisitions per second
 * @param handOffP50Micros the median round's median hand-off
 * @param handOffP99Micros the median round's 99th percentile hand-off
 * @param cpuMicrosPerAcquisition the median round's CPU time per acquisition
 * @param timeouts waits that timed out, summed over all rounds: a fault in any round must
 * show
 * @param overlaps broken mutual exclusions, summed over all rounds
 * @param errors threads that stopped on an exception, summed over all rounds
 * @param error the first error of the rounds, if any
 * @param lowestPerSecond the lowest throughput of the rounds
 * @param highestPerSecond the highest throughput of the rounds
 * @param rounds every round, in order
 */
public record ContendedResult(String library, int jvms, int threadsPerJvm, double acquisitionsPerSecond,
		double handOffP50Micros, double handOffP99Micros, double cpuMicrosPerAcquisition, long timeouts, long overlaps,
		long errors, String error, double lowestPerSecond, double highestPerSecond, List<ContendedRound> rounds) {

	static ContendedResult of(String library, int jvms, int threadsPerJvm, List<ContendedRound> rounds) {
		List<ContendedRound> sorted = rounds.stream()
			.sorted(Comparator.comparingDouble(ContendedRound::acquisitionsPerSecond))
			.toList();
		ContendedRound median = sorted.get(sorted.size() / 2);
		String error = rounds.stream()
			.map(ContendedRound::error)
			.filter((message) -> !message.isBlank())
			.findFirst()
			.orElse("");
		return new ContendedResult(library, jvms, threadsPerJvm, median.acquisitionsPerSecond(),
				median.handOffP50Micros(), median.handOffP99Micros(), median.cpuMicrosPerAcquisition(),
				rounds.stream().mapToLong(ContendedRound::timeouts).sum(),
				rounds.stream().mapToLong(ContendedRound::overlaps).sum(),
				rounds.stream().mapToLong(ContendedRound::errors).sum(), error, sorted.get(0).acquisitionsPerSecond(),
				sorted.get(sorted.size() - 1).acquisitionsPerSecond(), List.copyOf(rounds));
	}

}
