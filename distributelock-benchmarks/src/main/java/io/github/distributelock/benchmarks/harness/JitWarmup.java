package io.github.distributelock.benchmarks.harness;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Tells when this JVM's JIT compiler has settled, so that measuring starts then: a fixed
 * warm-up measures some libraries before their code is compiled and others after, the
 * more so on a busy machine, where the compiler's threads compete for the cores. A client
 * with a deep call path (Redisson's Netty pipeline and future chains) takes longer than a
 * shallow one: on this 2-core machine under load, a fixed 2 s contended warm-up measured
 * Redisson at about twice the CPU per acquisition it settled at 20 s later.
 */
final class JitWarmup {

	/**
	 * The compile time, over the last 2 seconds, below which the compiler is idle. A
	 * compilation adds its time when it ends, so a long one still running adds nothing: 2
	 * seconds, not 1, keep a starved compiler from passing for an idle one.
	 */
	private static final long IDLE_MILLIS = 40;

	private static final long SAMPLE_NANOS = Duration.ofMillis(250).toNanos();

	private static final int WINDOW_SAMPLES = 8;

	private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();

	private final boolean monitored = this.compiler != null && this.compiler.isCompilationTimeMonitoringSupported();

	private final long[] history = new long[WINDOW_SAMPLES + 1];

	private final long start = System.nanoTime();

	private final long least;

	private final long most;

	private long samples;

	private long nextSample = this.start;

	private long tookMillis;

	/**
	 * Starts watching the compiler.
	 * @param least the shortest warm-up
	 * @param most the longest: past it, measuring starts anyway, and says so
	 */
	JitWarmup(Duration least, Duration most) {
		this.least = least.toNanos();
		this.most = most.toNanos();
	}

	/**
	 * Whether the warm-up is over: the compiler has been idle for 2 seconds after the
	 * shortest warm-up, or the longest is reached. Cheap enough to call in a loop: it
	 * reads the compiler's counter four times a second at most.
	 * @return whether to start measuring
	 */
	boolean done() {
		if (this.tookMillis != 0) {
			return true;
		}
		long now = System.nanoTime();
		if (now - this.nextSample < 0) {
			return false;
		}
		this.nextSample = now + SAMPLE_NANOS;
		long elapsed = now - this.start;
		if (this.monitored) {
			this.history[(int) (this.samples % this.history.length)] = this.compiler.getTotalCompilationTime();
			this.samples++;
		}
		boolean idle = !this.monitored
				|| (this.samples > WINDOW_SAMPLES && this.history[(int) ((this.samples - 1) % this.history.length)]
						- this.history[(int) (this.samples % this.history.length)] < IDLE_MILLIS);
		if (elapsed >= this.least && idle) {
			this.tookMillis = Math.max(1, Duration.ofNanos(elapsed).toMillis());
		}
		else if (elapsed >= this.most) {
			this.tookMillis = -Duration.ofNanos(elapsed).toMillis();
		}
		return this.tookMillis != 0;
	}

	/**
	 * How long the warm-up took.
	 * @return milliseconds, negative if the compiler had not settled by the longest
	 * warm-up, 0 while it goes on
	 */
	long tookMillis() {
		return this.tookMillis;
	}

	/**
	 * Waits, on a thread that measures nothing, until the warm-up is over.
	 * @param least the shortest warm-up
	 * @param most the longest
	 * @return how long it took, as {@link #tookMillis()}
	 */
	static long await(Duration least, Duration most) {
		JitWarmup warmup = new JitWarmup(least, most);
		while (!warmup.done()) {
			// Sampling the compiler's counter: there is nothing to wait on.
			LockSupport.parkNanos(SAMPLE_NANOS);
		}
		return warmup.tookMillis();
	}

}
