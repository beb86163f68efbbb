package io.github.distributelock.benchmarks.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.ours.LockableLibrary;
import tools.jackson.databind.json.JsonMapper;

/**
 * The libraries of one store measured side by side in one JVM: short batches of
 * uncontended lock and unlock cycles, one library after the other, round after round, so
 * that a change of the machine's load over the minutes of a run weighs on all of them
 * alike. On a shared machine this gives steadier ratios than JMH's forks, which measure
 * one library after the other. Started by {@link InterleavedHarness}, once per store and
 * round.
 * <p>
 * Arguments: libraries (comma separated), batches per library, cycles per batch, the
 * round, result file.
 */
public final class InterleavedWorker {

	private static final int WARMUP_ROUNDS = 5;

	private static final Duration LONGEST_WARMUP = Duration.ofSeconds(30);

	private InterleavedWorker() {
	}

	public static void main(String[] args) throws Exception {
		List<String> names = List.of(args[0].split(","));
		int batches = Integer.parseInt(args[1]);
		int batch = Integer.parseInt(args[2]);
		int round = Integer.parseInt(args[3]);
		Path result = Path.of(args[4]);
		Endpoints endpoints = Endpoints.fromSystemProperties();
		List<LockLibrary> libraries = new ArrayList<>();
		try {
			for (String name : names) {
				libraries.add(Libraries.create(name, endpoints));
			}
			long[][] samples = new long[names.size()][batches * batch];
			// Warm-up batches until the JIT compiler settles (at least a few, at most 30
			// s), so that no library is measured half-compiled.
			JitWarmup warmup = new JitWarmup(Duration.ZERO, LONGEST_WARMUP);
			int warmupBatches = 0;
			while (warmupBatches < WARMUP_ROUNDS || !warmup.done()) {
				for (int i = 0; i < names.size(); i++) {
					String key = "interleaved." + names.get(i);
					for (int cycle = 0; cycle < batch; cycle++) {
						libraries.get(i)
							.lockAndUnlock(Libraries.isDirectCall(names.get(i)) ? LockableLibrary.directKey(key) : key);
					}
				}
				warmupBatches++;
			}
			for (int batchRound = 0; batchRound < batches; batchRound++) {
				for (int i = 0; i < names.size(); i++) {
					String key = "interleaved." + names.get(i);
					boolean direct = Libraries.isDirectCall(names.get(i));
					LockLibrary library = libraries.get(i);
					for (int cycle = 0; cycle < batch; cycle++) {
						long start = System.nanoTime();
						library.lockAndUnlock(direct ? LockableLibrary.directKey(key) : key);
						long took = System.nanoTime() - start;
						samples[i][batchRound * batch + cycle] = took;
					}
				}
			}
			List<InterleavedRound> results = new ArrayList<>();
			for (int i = 0; i < names.size(); i++) {
				long[] sorted = Percentiles.sorted(samples[i]);
				results.add(new InterleavedRound(names.get(i), round, sorted.length, Percentiles.of(sorted, 50) / 1e3,
						Percentiles.of(sorted, 99) / 1e3, Arrays.stream(sorted).average().orElse(Double.NaN) / 1e3,
						warmup.tookMillis()));
			}
			JsonMapper.builder().build().writeValue(result.toFile(), results);
		}
		finally {
			for (LockLibrary library : libraries) {
				library.close();
			}
		}
		System.exit(0);
	}

}
