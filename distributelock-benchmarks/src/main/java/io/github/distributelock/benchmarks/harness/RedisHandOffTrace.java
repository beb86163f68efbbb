package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.distributelock.benchmarks.library.Endpoints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The timeline of one hand-off of our Redis lock across two JVMs
 * ({@link RedisHandOffTraceWorker}), step by step, every round: when the holder's release
 * returned, when its {@code PUBLISH} reached the waiter's JVM, when the waiter's lock
 * returned, all from the holder's call to release; and an uncontended attempt in the
 * waiter's JVM, to tell the waiter's wake from its attempt. A row run only
 * ({@code --parts=redis-trace}).
 */
public final class RedisHandOffTrace {

	private static final Log logger = LogFactory.getLog(RedisHandOffTrace.class);

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public RedisHandOffTrace(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	public Measured<Round> run() throws Exception {
		Files.createDirectories(this.workDirectory);
		List<Round> rounds = new ArrayList<>();
		List<RoundLoad> loads = new ArrayList<>();
		for (int round = 1; round <= this.settings.rounds(); round++) {
			String atStart = LoadAverage.now().toString();
			rounds.add(run(round));
			loads.add(new RoundLoad(round, atStart, LoadAverage.now().toString()));
		}
		return new Measured<>(loads, rounds);
	}

	private Round run(int round) throws Exception {
		String name = "redis-trace-" + round;
		Path boardFile = this.workDirectory.resolve(name + ".board");
		Files.deleteIfExists(boardFile);
		HandOffBoard.open(boardFile);
		Path result = this.workDirectory.resolve(name + ".txt");
		Files.deleteIfExists(result);
		int warmup = this.settings.quick() ? 50 : 1000;
		int measured = this.settings.quick() ? 50 : 1000;
		String loadBefore = LoadAverage.now().toString();
		ChildJvm.runWaiterAndHolder(RedisHandOffTraceWorker.class, this.endpoints, this.workDirectory, name,
				(role) -> List.of(role, boardFile.toString(), Integer.toString(warmup), Integer.toString(measured),
						result.toString()));
		List<String> lines = Files.readAllLines(result);
		long timeouts = Long.parseLong(lines.get(lines.size() - 1).substring("timeouts ".length()));
		List<long[]> cycles = lines.subList(0, lines.size() - 1)
			.stream()
			.map((line) -> Stream.of(line.split(" ")).mapToLong(Long::parseLong).toArray())
			.toList();
		Round measuredRound = new Round(round, cycles.size(), Step.of(cycles, 0), Step.of(cycles, 1),
				Step.of(cycles, 2), Step.of(cycles, 3), timeouts, loadBefore, LoadAverage.now().toString());
		logger.info(String
			.format("Redis hand-off across JVMs, round %d of %d, from the holder's release call (p50 / p90 us): "
					+ "release returned %s, PUBLISH heard in the waiter's JVM %s, waiter's lock returned %s; "
					+ "an uncontended attempt there %s; %d hand-offs, %d timeouts (load average %s before, %s after)",
					round, this.settings.rounds(), measuredRound.releaseReturned(), measuredRound.publishHeard(),
					measuredRound.acquired(), measuredRound.uncontendedAttempt(), cycles.size(), timeouts, loadBefore,
					measuredRound.loadAfter()));
		return measuredRound;
	}

	/**
	 * One round of the trace; each step in microseconds from the holder's call to
	 * release, but the uncontended attempt, which is its own duration.
	 */
	public record Round(int round, int handOffs, Step releaseReturned, Step publishHeard, Step acquired,
			Step uncontendedAttempt, long timeouts, String loadBefore, String loadAfter) {
	}

	/** The median and 90th percentile of a step, in microseconds. */
	public record Step(double p50Micros, double p90Micros) {

		static Step of(List<long[]> cycles, int column) {
			long[] sorted = Percentiles.sorted(cycles.stream().mapToLong((cycle) -> cycle[column]).toArray());
			return new Step(Percentiles.of(sorted, 50) / 1000, Percentiles.of(sorted, 90) / 1000);
		}

		@Override
		public String toString() {
			return String.format("%.0f / %.0f", this.p50Micros, this.p90Micros);
		}

	}

}
