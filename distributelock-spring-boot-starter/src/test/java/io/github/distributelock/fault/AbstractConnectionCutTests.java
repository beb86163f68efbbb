package io.github.distributelock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder whose connection to the store goes through a {@link TcpProxy} that cuts it:
 * for longer than the lease, the holder hears that its lock is lost and another client
 * takes it; for a moment shorter than the lease, the lock is kept.
 */
abstract class AbstractConnectionCutTests {

	private static final Log logger = LogFactory.getLog(AbstractConnectionCutTests.class);

	/** The watchdog lease, or the ZooKeeper session timeout. */
	protected static final Duration LEASE = Duration.ofSeconds(3);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	/**
	 * A backend that reaches the store on {@code port}, with client timeouts below the
	 * lease.
	 */
	protected abstract LockBackend newBackend(int port) throws Exception;

	protected abstract int storePort();

	/** Whether the store itself holds the lock of {@code key}, read without the proxy. */
	protected abstract boolean isLocked(String key) throws Exception;

	protected abstract String backendName();

	@AfterEach
	void closeAll() throws Exception {
		Exception failure = null;
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			try {
				this.closeables.get(i).close();
			}
			catch (Exception ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		this.closeables.clear();
		if (failure != null) {
			throw failure;
		}
	}

	protected <T extends AutoCloseable> T closeAfter(T closeable) {
		this.closeables.add(closeable);
		return closeable;
	}

	private DefaultDistributeLock newLock(int port) throws Exception {
		LockBackend backend = newBackend(port);
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return closeAfter(new DefaultDistributeLock(backend, LEASE, false, LockEventListener.NONE, null));
	}

	@Test
	void cutLongerThanTheLeaseReportsTheLossAndLetsAnotherClientTakeTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		DefaultDistributeLock otherLock = newLock(storePort());
		String key = "cut-long." + System.nanoTime();
		LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		proxy.cut();
		long cut = System.nanoTime();
		await().atMost(LEASE.plusSeconds(20)).until(() -> !held.isHeld());
		long lossMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
		logger.info(backendName() + ": holder cut off reported its loss after " + lossMillis + " ms (lease "
				+ LEASE.toMillis() + " ms)");
		try (LockHandle taken = otherLock.tryAcquire(key, LEASE.plusSeconds(20), null).orElseThrow()) {
			logger.info(backendName() + ": another client took the lock "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut) + " ms after the cut");
			assertThat(taken.isHeld()).isTrue();
			proxy.restore();
			try {
				held.close();
			}
			catch (DistributeLockException ex) {
				// The holder's client may not have reconnected yet: its release fails
				// within the client's timeout, and cannot remove the new holder's lock.
				logger.info(backendName() + ": release of the lost lock failed: " + ex.getMessage());
			}
			assertThat(isLocked(key)).isTrue();
			assertThat(taken.isHeld()).isTrue();
		}
	}

	@Test
	void cutShorterThanTheLeaseKeepsTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		String key = "cut-short." + System.nanoTime();
		try (LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			proxy.cut();
			// The partition is the scenario: a third of the lease.
			Thread.sleep(LEASE.toMillis() / 3);
			proxy.restore();
			// Two more leases pass, so the lock survives only if it was renewed.
			Thread.sleep(LEASE.toMillis() * 2);
			assertThat(held.isHeld()).isTrue();
			assertThat(isLocked(key)).isTrue();
		}
		assertThat(isLocked(key)).isFalse();
	}

	@Test
	void latencyOfAFifteenthOfTheLeaseEachWayKeepsTheLockThroughRenewals() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		DefaultDistributeLock otherLock = newLock(storePort());
		String key = "latency." + System.nanoTime();
		Duration latency = LEASE.dividedBy(15);
		try (LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			proxy.latency(latency);
			// Renewals, every third of the lease, each take a slow round trip on the
			// established connection; the lock must stay held, and exclusive, for longer
			// than one lease.
			await().during(LEASE.multipliedBy(3).dividedBy(2))
				.atMost(LEASE.multipliedBy(3))
				.until(() -> held.isHeld() && isLocked(key));
			assertThat(otherLock.tryAcquire(key, Duration.ZERO, null)).isEmpty();
			assertThat(holderLock.lostLockCount()).isZero();
			long start = System.nanoTime();
			held.close();
			logger.info(backendName() + ": released through " + latency.toMillis() + " ms of latency each way in "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		}
		assertThat(isLocked(key)).isFalse();
	}

}
