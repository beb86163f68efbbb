package io.github.distributelock.benchmarks.harness;

import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.ours.LockableLibrary;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * One uncontended lock and unlock of one key, on one thread, for each library: latency
 * percentiles ({@link Mode#SampleTime}) and operations per second
 * ({@link Mode#Throughput}). The library is a parameter, so every library runs in its own
 * forked JVM against the servers {@code BenchmarkMain} started.
 */
@State(Scope.Benchmark)
@BenchmarkMode({ Mode.SampleTime, Mode.Throughput })
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Threads(1)
public class UncontendedBenchmark {

	/** The library, set by {@code BenchmarkMain} to those this build has. */
	@Param({ Libraries.REDIS_FLOOR })
	public String library;

	private static final int SETUP_CYCLES = 200;

	private LockLibrary lock;

	private String key;

	private boolean directCall;

	@Setup(Level.Trial)
	public void start() throws Exception {
		this.lock = Libraries.create(this.library, Endpoints.fromSystemProperties());
		this.key = "uncontended." + this.library;
		// Some clients connect and load scripts at their first call: not in the
		// measurement, not even in its warm-up.
		for (int i = 0; i < SETUP_CYCLES; i++) {
			this.lock.lockAndUnlock(this.key + ".setup");
		}
		this.directCall = Libraries.isDirectCall(this.library);
	}

	@Benchmark
	public void lockAndUnlock() throws Exception {
		// The direct call builds, on each call, the key the @Lockable method's fields
		// build, so the two differ only by the annotation.
		this.lock.lockAndUnlock(this.directCall ? LockableLibrary.directKey(this.key) : this.key);
	}

	@TearDown(Level.Trial)
	public void stop() throws Exception {
		this.lock.close();
	}

}
