package io.github.distributelock.fault;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The caller's deadline on a store that is slow or goes away, for one backend: a caller
 * whose store is {@link #LATENCY} away each way (a {@link TcpProxy} delays every packet)
 * returns no later than its wait plus one attempt at the store; a store that goes away
 * and comes back within a caller's wait costs the caller nothing but time; one that comes
 * back too late fails the caller with the store's error soon after its deadline.
 * <p>
 * How soon: an attempt that fails may have been applied by the store, so the engine gives
 * it back (a release) before it tells the caller. With the store away, the last attempt
 * and that release each take up to the client's timeout ({@link #storeCallTimeout()}), so
 * a failing caller returns within its wait plus two store calls, not one.
 * <p>
 * The caller reaches the store through the proxy; the other client, which holds the key,
 * reaches it directly. Each figure is logged with the backend's name.
 */
abstract class AbstractDeadlineFaultTests {

	private static final Log logger = LogFactory.getLog(AbstractDeadlineFaultTests.class);

	/** Added by the proxy to every packet, each way. */
	protected static final Duration LATENCY = Duration.ofMillis(150);

	/** One round trip through the proxy. */
	protected static final Duration ROUND_TRIP = LATENCY.multipliedBy(2);

	/**
	 * Room for a loaded machine (a pump thread of the proxy, a continuation, the test's
	 * own thread each waiting for a core) on top of the bounds under test; less than a
	 * round trip, so that a round trip too many fails the test.
	 */
	private static final Duration SLACK = Duration.ofMillis(250);

	private final Closeables closeables = new Closeables();

	/**
	 * A backend that reaches the store on {@code port}, whose client gives up a store
	 * call after about {@link #storeCallTimeout()}, far above {@link #ROUND_TRIP}.
	 */
	protected abstract LockBackend newBackend(int port) throws Exception;

	protected abstract int storePort();

	protected abstract String backendName();

	/**
	 * The longest one store call takes while the store cannot be reached, from the client
	 * timeouts {@link #newBackend(int)} configures.
	 */
	protected abstract Duration storeCallTimeout();

	/**
	 * How long past its deadline a caller on a busy key may return: one round trip (its
	 * last attempt), unless the backend documents more.
	 */
	protected Duration allowedOverrun() {
		return ROUND_TRIP;
	}

	/**
	 * Waits until the caller on {@code callerPort}, cut off from the store while it waits
	 * for a busy key, has found out: two more attempts, which fail while the store is
	 * away.
	 */
	protected void awaitCallerCutOff(int callerPort, CountingLockBackend caller, int attemptsBefore, Duration wait) {
		await().atMost(wait).until(() -> caller.acquireAttempts.get() >= attemptsBefore + 2);
	}

	@AfterEach
	void closeAll() throws Exception {
		this.closeables.close();
	}

	protected <T extends AutoCloseable> T closeAfter(T closeable) {
		return this.closeables.add(closeable);
	}

	private CountingLockBackend newBackendClosedAfter(int port) throws Exception {
		LockBackend backend = newBackend(port);
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return CountingLockBackend.of(backend);
	}

	private DefaultDistributeLock newLock(LockBackend backend) {
		return closeAfter(
				new DefaultDistributeLock(backend, Duration.ofSeconds(30), false, LockEventListener.NONE, null));
	}

	/** A lock whose connections through {@code proxy} are open, and used once. */
	private DefaultDistributeLock warmLock(TcpProxy proxy) throws Exception {
		DefaultDistributeLock lock = newLock(newBackendClosedAfter(proxy.port()));
		lock.tryAcquire("warm-up." + System.nanoTime(), Duration.ofSeconds(10), null).orElseThrow().close();
		return lock;
	}

	private LockHandle holdElsewhere(String key) throws Exception {
		DefaultDistributeLock holder = newLock(newBackendClosedAfter(storePort()));
		return closeAfter(holder.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow());
	}

	@Test
	void busyKeyOnASlowStoreReturnsEmptyWithinTheWaitPlusOneAttempt() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock caller = warmLock(proxy);
		String key = "slow-busy." + System.nanoTime();
		holdElsewhere(key);
		proxy.latency(LATENCY);
		long oneAttempt = millisToGetNothing(caller, key, Duration.ZERO);
		Duration wait = Duration.ofSeconds(1);
		long took = millisToGetNothing(caller, key, wait);
		report("a caller with a 1000 ms wait on a busy key", took, wait, oneAttempt);
		assertThat(took).isLessThanOrEqualTo(bound(wait));
	}

	@Test
	void freshCallerOnASlowStoreReturnsEmptyWithinTheWaitPlusOneAttempt() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		String key = "slow-fresh." + System.nanoTime();
		holdElsewhere(key);
		// A new client, never used: what it opens lazily (Redis's subscriber connection,
		// ZooKeeper's lock root) is opened through the slow proxy by its first call.
		DefaultDistributeLock caller = newLock(newBackendClosedAfter(proxy.port()));
		proxy.latency(LATENCY);
		Duration wait = Duration.ofSeconds(2);
		long took = millisToGetNothing(caller, key, wait);
		report("a fresh caller with a 2000 ms wait on a busy key", took, wait, -1);
		assertThat(took).isLessThanOrEqualTo(bound(wait));
	}

	@Test
	void waitThatEndsDuringAStoreCallReturnsWhenItAnswers() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock caller = warmLock(proxy);
		String key = "slow-mid-call." + System.nanoTime();
		holdElsewhere(key);
		proxy.latency(LATENCY);
		// The first attempt is still on its way when the wait ends.
		Duration shorterThanOneCall = LATENCY;
		long took = millisToGetNothing(caller, key, shorterThanOneCall);
		report("a caller whose wait ends during its first attempt", took, shorterThanOneCall, -1);
		assertThat(took).isLessThanOrEqualTo(bound(shorterThanOneCall));
		// The wait ends while the caller waits for the release, in the store call that
		// follows the first attempt (Redis subscribing, JDBC polling, ZooKeeper setting
		// its watch).
		Duration endsInTheWait = ROUND_TRIP.plus(LATENCY);
		took = millisToGetNothing(caller, key, endsInTheWait);
		report("a caller whose wait ends during its wait for the release", took, endsInTheWait, -1);
		assertThat(took).isLessThanOrEqualTo(bound(endsInTheWait));
	}

	@Test
	void storeThatComesBackWithinTheWaitGivesTheCallerTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend callerBackend = newBackendClosedAfter(proxy.port());
		DefaultDistributeLock caller = newLock(callerBackend);
		caller.tryAcquire("warm-up." + System.nanoTime(), Duration.ofSeconds(10), null).orElseThrow().close();
		String key = "comes-back." + System.nanoTime();
		LockHandle held = holdElsewhere(key);
		Duration wait = storeCallTimeout().multipliedBy(6).plusSeconds(5);
		long start = System.nanoTime();
		CompletableFuture<Optional<LockHandle>> acquired = CompletableFuture
			.supplyAsync(() -> acquire(caller, LockRequest.of(key).withWaitTime(wait)));
		assertThat(callerBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		int attemptsBefore = callerBackend.acquireAttempts.get();
		proxy.cut();
		long cut = System.nanoTime();
		// Freed while the caller cannot hear of it: its wait or its next attempts fail.
		held.close();
		awaitCallerCutOff(proxy.port(), callerBackend, attemptsBefore, wait);
		proxy.restore();
		long restored = System.nanoTime();
		try (LockHandle handle = acquired.get(wait.toMillis(), TimeUnit.MILLISECONDS).orElseThrow()) {
			long took = millisSince(start);
			logger.info(backendName() + ": the store went away for " + millis(restored - cut)
					+ " ms during a caller's wait of " + wait.toMillis() + " ms; the caller got the lock after " + took
					+ " ms, " + millisSince(restored) + " ms after the store came back, at attempt "
					+ callerBackend.acquireAttempts.get());
			assertThat(handle.isHeld()).isTrue();
			assertThat(took).isLessThan(wait.toMillis());
		}
	}

	@Test
	void storeThatComesBackTooLateFailsTheCallerWithTheStoreErrorAfterTheWait() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend callerBackend = newBackendClosedAfter(proxy.port());
		DefaultDistributeLock caller = newLock(callerBackend);
		caller.tryAcquire("warm-up." + System.nanoTime(), Duration.ofSeconds(10), null).orElseThrow().close();
		String key = "too-late." + System.nanoTime();
		proxy.cut();
		// Room for more than one failed attempt, each followed by its give-back.
		Duration wait = storeCallTimeout().multipliedBy(5);
		int attemptsBefore = callerBackend.acquireAttempts.get();
		long start = System.nanoTime();
		DistributeLockException failure = failure(caller, key, wait);
		long took = millisSince(start);
		int attempts = callerBackend.acquireAttempts.get() - attemptsBefore;
		logger.info(backendName() + ": a caller with a " + wait.toMillis() + " ms wait while the store was away"
				+ " failed after " + took + " ms (" + (took - wait.toMillis()) + " ms past its wait; one store call"
				+ " may take " + storeCallTimeout().toMillis() + " ms) after " + attempts + " attempts, with: "
				+ failure.getCause());
		assertThat(attempts).isGreaterThan(1);
		assertThat(took).isLessThanOrEqualTo(failingBound(wait));
	}

	@Test
	void waitOfZeroMakesOneAttemptAndFailsAtOnceWhenTheStoreIsAway() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend callerBackend = newBackendClosedAfter(proxy.port());
		DefaultDistributeLock caller = newLock(callerBackend);
		caller.tryAcquire("warm-up." + System.nanoTime(), Duration.ofSeconds(10), null).orElseThrow().close();
		proxy.cut();
		int attemptsBefore = callerBackend.acquireAttempts.get();
		long start = System.nanoTime();
		DistributeLockException failure = failure(caller, "zero-wait." + System.nanoTime(), Duration.ZERO);
		long took = millisSince(start);
		logger.info(backendName() + ": a caller with a wait of 0 while the store was away failed after " + took
				+ " ms (one store call may take " + storeCallTimeout().toMillis() + " ms) with: " + failure.getCause());
		assertThat(callerBackend.acquireAttempts.get() - attemptsBefore).isOne();
		assertThat(took).isLessThanOrEqualTo(failingBound(Duration.ZERO));
	}

	/**
	 * The failure of a caller of a store that cannot be reached, with its cause checked.
	 */
	private DistributeLockException failure(DefaultDistributeLock caller, String key, Duration wait) {
		DistributeLockException failure = catchFailure(() -> caller.tryAcquire(LockRequest.of(key).withWaitTime(wait)));
		assertThat(failure).hasMessageContaining(key).hasMessageContaining(caller.backend().name());
		// The store's own error, not a wrapper of the engine's.
		assertThat(failure.getCause()).isNotNull().isNotInstanceOf(DistributeLockException.class);
		return failure;
	}

	private static DistributeLockException catchFailure(ThrowingCall call) {
		try {
			call.run();
		}
		catch (DistributeLockException ex) {
			return ex;
		}
		catch (Exception ex) {
			throw new AssertionError("Expected a DistributeLockException, got " + ex, ex);
		}
		throw new AssertionError("Expected a DistributeLockException, the call returned");
	}

	private long millisToGetNothing(DefaultDistributeLock caller, String key, Duration wait) throws Exception {
		long start = System.nanoTime();
		Optional<LockHandle> handle = caller.tryAcquire(LockRequest.of(key).withWaitTime(wait));
		long took = millisSince(start);
		assertThat(handle).isEmpty();
		return took;
	}

	/** The wait, then the last attempt and its give-back, each cut off by the client. */
	private long failingBound(Duration wait) {
		return wait.plus(storeCallTimeout().multipliedBy(2)).plus(SLACK).toMillis();
	}

	private long bound(Duration wait) {
		return wait.plus(allowedOverrun()).plus(SLACK).toMillis();
	}

	private void report(String what, long took, Duration wait, long oneAttempt) {
		logger.info(backendName() + ": " + what + " through " + LATENCY.toMillis() + " ms each way returned after "
				+ took + " ms, " + (took - wait.toMillis()) + " ms past its wait of " + wait.toMillis() + " ms (bound: "
				+ allowedOverrun().toMillis() + " ms and " + SLACK.toMillis() + " ms of slack"
				+ ((oneAttempt >= 0) ? "; one attempt with a wait of 0 took " + oneAttempt + " ms)" : ")"));
	}

	private static Optional<LockHandle> acquire(DefaultDistributeLock lock, LockRequest request) {
		try {
			return lock.tryAcquire(request);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static long millisSince(long nanos) {
		return millis(System.nanoTime() - nanos);
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	@FunctionalInterface
	private interface ThrowingCall {

		void run() throws Exception;

	}

}
