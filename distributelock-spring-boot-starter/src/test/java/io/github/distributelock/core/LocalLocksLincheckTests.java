package io.github.distributelock.core;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The local half of the engine (the key table, the per-key gate, reentrancy, hold counts,
 * release, shutdown) checked by Lincheck: its model checker runs the operations of
 * {@link LockScenario} from three threads in many interleavings, and each history must be
 * explained by {@link SequentialLocks}, the sequential specification, with the store and
 * the key table in agreement whenever no call runs. The stress runs do the same on real
 * threads.
 * <p>
 * Without a shutdown every history is linearizable. With one, the model checker finds
 * histories that are not, as the shutdown is not one atomic step, so
 * {@link LockScenarioWithShutdown} is checked for its invariants instead. Both kinds are
 * by design and break neither mutual exclusion nor the release of what was held:
 * <ul>
 * <li>an acquisition whose attempt is in flight holds the key's local gate; when the
 * shutdown then ends it, a caller with a wait time of zero that came meanwhile was told
 * the key is busy, although nobody ever held it: <pre>
 * Thread 1: acquireAsync(a): shutting down | Thread 2: acquire(a): busy, shutdown()
 * </pre></li>
 * <li>the shutdown refuses new acquisitions before it releases the held locks (it first
 * lets the acquisitions in flight end), so a held lock still says it is held after
 * another caller was refused (thread 1's {@code isHeld} begins after thread 3 returned):
 * <pre>
 * Thread 1: acquire(a): acquired, isHeld(a): true | Thread 2: shutdown() | Thread 3: acquire(b): shutting down
 * </pre></li>
 * </ul>
 * <p>
 * Scenarios are not minimised: the minimiser moves operations into the single-threaded
 * parts of a scenario, where the thread numbers that reentrancy depends on no longer
 * match the threads that run them.
 */
@Tag("lincheck")
class LocalLocksLincheckTests {

	private static final int ACTORS_PER_THREAD = 3;

	/**
	 * Multiplies the number of scenarios: 1 in the build, which must stay lean (about a
	 * minute on two cores), more for a deeper search, as in
	 * {@code -Dlincheck.depth=10 -Dtest=LocalLocksLincheckTests}.
	 */
	private static final int DEPTH = Integer.getInteger("lincheck.depth", 1);

	@BeforeAll
	static void quietEngine() {
		// The model checker lets the shutdown's bounded wait for the acquisitions in
		// flight time out at once, which the engine logs each time.
		engineLogger().setLevel(Level.ERROR);
	}

	@AfterAll
	static void restoreEngineLogging() {
		engineLogger().setLevel(null);
	}

	private static Logger engineLogger() {
		return (Logger) LoggerFactory.getLogger(DefaultDistributeLock.class);
	}

	@Test
	void modelChecking() {
		configure(new ModelCheckingOptions()).iterations(3 * DEPTH)
			.invocationsPerIteration(100)
			.check(LockScenario.class);
	}

	@Test
	void modelCheckingWithShutdown() {
		// Fewer interleavings than without shutdown: each scenario explores a shutdown's
		// interleavings too and costs about four times as much.
		configure(new ModelCheckingOptions()).iterations(3 * DEPTH)
			.invocationsPerIteration(30)
			.verifier(EpsilonVerifier.class)
			.check(LockScenarioWithShutdown.class);
	}

	@Test
	void stress() {
		configure(new StressOptions()).iterations(4 * DEPTH).invocationsPerIteration(1_000).check(LockScenario.class);
	}

	@Test
	void stressWithShutdown() {
		configure(new StressOptions()).iterations(4 * DEPTH)
			.invocationsPerIteration(1_000)
			.verifier(EpsilonVerifier.class)
			.check(LockScenarioWithShutdown.class);
	}

	private static <O extends Options<O, ?>> O configure(O options) {
		return options.threads(LockOperations.THREADS)
			.actorsPerThread(ACTORS_PER_THREAD)
			.actorsBefore(0)
			.actorsAfter(0)
			.minimizeFailedScenario(false)
			.sequentialSpecification(SequentialLocks.class);
	}

}
