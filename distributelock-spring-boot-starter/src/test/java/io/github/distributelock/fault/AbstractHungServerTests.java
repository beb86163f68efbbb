package io.github.distributelock.fault;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A store server that is hung but connected: the {@link TcpProxy} in front of it keeps
 * every connection open and accepts new ones, but forwards nothing either way
 * ({@link TcpProxy#blackhole()}), so the client hears of it only by its own timeouts. A
 * round trip to it never ends, so each bound is one the user configured, which each
 * backend names.
 */
abstract class AbstractHungServerTests {

	private static final Log logger = LogFactory.getLog(AbstractHungServerTests.class);

	static final Duration WAIT = Duration.ofSeconds(1);

	/** Room for a loaded machine (two cores shared with other builds). */
	static final Duration SLACK = Duration.ofSeconds(1);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/** The name the backend's failures carry. */
	protected abstract String backendName();

	/** The port of the store itself, which the proxy forwards to. */
	protected abstract int storePort();

	/** A lock through the proxy for the caller that goes into the hung server. */
	protected abstract DefaultDistributeLock callerThrough(TcpProxy proxy) throws Exception;

	/** A lock through the proxy for a holder whose server hangs. */
	protected abstract DefaultDistributeLock holderThrough(TcpProxy proxy) throws Exception;

	/** A lock connected to the store directly, as another instance. */
	protected abstract DefaultDistributeLock direct() throws Exception;

	/** Whether the store still holds anything for {@code key}, read directly. */
	protected abstract boolean isLocked(String key) throws Exception;

	/** How long after its wait a caller behind the hung server may end. */
	protected abstract Duration callerAllowance();

	/** How long after the server hangs the holder may hear of its loss. */
	protected abstract Duration lossBound();

	/** How long the release of a lost lock behind the hung server may take. */
	protected abstract Duration releaseBound();

	/** How long the store may keep a lost holder's key once it hears of its loss. */
	protected abstract Duration storeExpiry();

	/** How long a lock may wait for the key once the server answers again. */
	protected abstract Duration recovery();

	/**
	 * A caller whose attempt goes into the hung server, on a free key or one another
	 * client holds, fails by its wait plus {@link #callerAllowance()}, told with the key
	 * and backend. Once the server answers, what the abandoned attempt took is given back
	 * and the same lock takes the key.
	 */
	@ParameterizedTest(name = "held by another: {0}")
	@ValueSource(booleans = { false, true })
	void callerBehindAHungServerFailsByItsDeadlineAndTheKeyIsTakenOnceItAnswers(boolean held) throws Exception {
		TcpProxy proxy = this.closeables.add(TcpProxy.start(storePort()));
		DefaultDistributeLock caller = callerThrough(proxy);
		String key = "hung." + held + "." + System.nanoTime();
		caller.tryAcquire(LockRequest.of(key + ".warm-up")).orElseThrow().close();
		LockHandle holder = (held) ? direct().tryAcquire(LockRequest.of(key)).orElseThrow() : null;
		proxy.blackhole();
		long start = System.nanoTime();
		try {
			DistributeLockException failure = bounded(WAIT.plus(callerAllowance()), () -> {
				try {
					caller.tryAcquire(LockRequest.of(key).withWaitTime(WAIT));
					return null;
				}
				catch (DistributeLockException ex) {
					return ex;
				}
			});
			long took = millisSince(start);
			logger.info(backendName() + ": a caller with a wait of " + WAIT.toMillis() + " ms on a "
					+ (held ? "held" : "free") + " key behind a hung server ended after " + took + " ms with "
					+ failure);
			assertThat(failure).as("the caller's failure").isNotNull();
			assertThat(failure).hasMessageContaining(key).hasMessageContaining(backendName());
			assertThat(took).isLessThanOrEqualTo(WAIT.plus(callerAllowance()).plus(SLACK).toMillis());
		}
		finally {
			proxy.heal();
		}
		if (holder != null) {
			holder.close();
		}
		long healed = System.nanoTime();
		try (LockHandle again = caller.tryAcquire(LockRequest.of(key).withWaitTime(recovery())).orElseThrow()) {
			logger.info(backendName() + ": the caller took the key " + millisSince(healed)
					+ " ms after the server answered again");
			assertThat(again.isHeld()).isTrue();
		}
		await().atMost(storeExpiry().plus(SLACK)).until(() -> !isLocked(key));
		assertThat(caller.heldLocks()).isEmpty();
	}

	/**
	 * A holder behind the hung server hears of its loss (listener, {@code isHeld()}) by
	 * {@link #lossBound()}; closing the lost handle ends by {@link #releaseBound()},
	 * failing with the key and backend or not at all; the store lets its key go, and once
	 * the server answers again the same lock takes the key and leaves nothing behind.
	 */
	@Test
	void holderBehindAHungServerHearsOfItsLossAndTakesTheKeyAgainOnceItAnswers() throws Exception {
		TcpProxy proxy = this.closeables.add(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = holderThrough(proxy);
		String key = "hung.holder." + System.nanoTime();
		LockHandle held = holderLock.tryAcquire(LockRequest.of(key)).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		held.onLost((handle) -> lost.countDown());
		proxy.blackhole();
		long start = System.nanoTime();
		try {
			assertThat(lost.await(lossBound().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			long lossMillis = millisSince(start);
			assertThat(held.isHeld()).isFalse();
			long releaseStart = System.nanoTime();
			Exception releaseFailure = bounded(releaseBound(), () -> {
				try {
					held.close();
					return null;
				}
				catch (DistributeLockException ex) {
					return ex;
				}
			});
			long releaseMillis = millisSince(releaseStart);
			logger.info(backendName() + ": a holder behind a hung server heard of its loss after " + lossMillis
					+ " ms (bound " + lossBound().toMillis() + " ms); its release then ended after " + releaseMillis
					+ " ms with " + releaseFailure);
			assertThat(lossMillis).isLessThanOrEqualTo(lossBound().plus(SLACK).toMillis());
			assertThat(releaseMillis).isLessThanOrEqualTo(releaseBound().plus(SLACK).toMillis());
			if (releaseFailure != null) {
				assertThat(releaseFailure).hasMessageContaining(key).hasMessageContaining(backendName());
			}
			await().atMost(storeExpiry().plus(SLACK)).until(() -> !isLocked(key));
		}
		finally {
			proxy.heal();
		}
		long healed = System.nanoTime();
		try (LockHandle again = holderLock.tryAcquire(LockRequest.of(key).withWaitTime(recovery())).orElseThrow()) {
			logger.info(backendName() + ": the holder took the key again " + millisSince(healed)
					+ " ms after the server answered again");
			assertThat(again.isHeld()).isTrue();
			assertThat(isLocked(key)).isTrue();
		}
		await().atMost(storeExpiry().plus(SLACK)).until(() -> !isLocked(key));
		assertThat(holderLock.heldLocks()).isEmpty();
	}

	/**
	 * Runs a call into the hung server on a thread of its own, failing the test if it has
	 * not ended by {@code bound} and {@link #SLACK}: a call that hangs is the defect
	 * these tests look for, and the closed proxy then ends it.
	 */
	static <T> T bounded(Duration bound, ThrowingSupplier<T> call) {
		return assertTimeoutPreemptively(bound.plus(SLACK), call,
				() -> "the call into the hung server had not ended after " + bound.plus(SLACK).toMillis() + " ms");
	}

	static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

}
