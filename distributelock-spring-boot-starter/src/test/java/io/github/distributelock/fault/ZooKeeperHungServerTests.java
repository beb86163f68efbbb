package io.github.distributelock.fault;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A ZooKeeper server that is hung but connected: the {@link TcpProxy} in front of it
 * keeps every connection open and accepts new ones, but forwards nothing either way
 * ({@link TcpProxy#blackhole()}), so the client hears of it only by its own timeouts.
 */
class ZooKeeperHungServerTests {

	private static final Log logger = LogFactory.getLog(ZooKeeperHungServerTests.class);

	/**
	 * The session timeout of a holder behind the proxy: it hears of its loss when its
	 * client has heard nothing for {@link #READ_TIMEOUT}, and Curator a session timeout
	 * after that.
	 */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

	/**
	 * How long ZooKeeper's client waits for a byte from the server before it calls the
	 * connection lost: two thirds of the session timeout. The client pings the server
	 * when it has sent nothing for half of it, so a silent server is heard of this long
	 * after the last answer.
	 */
	private static final Duration READ_TIMEOUT = SESSION_TIMEOUT.multipliedBy(2).dividedBy(3);

	/**
	 * The session timeout of a caller behind the proxy: its client calls the connection
	 * lost after 6 s of silence, far later than its deadline plus its connection timeout.
	 */
	private static final Duration CALLER_SESSION_TIMEOUT = Duration.ofSeconds(9);

	/** The longest a quick client waits for the server to be reachable. */
	private static final Duration CONNECTION_TIMEOUT = EmbeddedZooKeeper.QUICK_CONNECTION_TIMEOUT;

	private static final Duration WAIT = Duration.ofSeconds(1);

	/** Room for a loaded machine (two cores shared with other builds). */
	private static final Duration SLACK = Duration.ofSeconds(1);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/**
	 * A caller whose attempt goes into the hung server, on a free key or one another
	 * client holds: a round trip that never ends cannot bound it, so the bound is its
	 * wait plus the client's connection timeout, the longest the client is configured to
	 * wait for the server to be reachable, far below the client's read timeout here. Once
	 * the server answers, what the abandoned attempt took is given back and the same lock
	 * takes the key.
	 */
	@ParameterizedTest(name = "held by another: {0}")
	@ValueSource(booleans = { false, true })
	void callerBehindAHungServerFailsByItsDeadlineAndTheKeyIsTakenOnceItAnswers(boolean held) throws Exception {
		TcpProxy proxy = this.closeables.add(TcpProxy.start(zooKeeper.port()));
		DefaultDistributeLock caller = lockThrough(proxy, CALLER_SESSION_TIMEOUT);
		String key = "hung." + held + "." + System.nanoTime();
		caller.tryAcquire(LockRequest.of(key + ".warm-up")).orElseThrow().close();
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(
				this.closeables
					.add(new ZooKeeperLockBackend(this.closeables.add(zooKeeper.newClient(SESSION_TIMEOUT)))),
				Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		LockHandle holder = (held) ? other.tryAcquire(LockRequest.of(key)).orElseThrow() : null;
		proxy.blackhole();
		long start = System.nanoTime();
		try {
			DistributeLockException failure = null;
			try {
				caller.tryAcquire(LockRequest.of(key).withWaitTime(WAIT));
			}
			catch (DistributeLockException ex) {
				failure = ex;
			}
			long took = millisSince(start);
			logger.info("ZooKeeper: a caller with a wait of " + WAIT.toMillis() + " ms on a " + (held ? "held" : "free")
					+ " key behind a hung server ended after " + took + " ms with " + failure);
			assertThat(failure).as("the caller's failure").isNotNull();
			assertThat(failure).hasMessageContaining(key).hasMessageContaining("zookeeper");
			assertThat(took).isLessThanOrEqualTo(WAIT.plus(CONNECTION_TIMEOUT).plus(SLACK).toMillis());
		}
		finally {
			proxy.heal();
		}
		if (holder != null) {
			holder.close();
		}
		try (LockHandle again = caller
			.tryAcquire(LockRequest.of(key).withWaitTime(CALLER_SESSION_TIMEOUT.multipliedBy(2)))
			.orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
		await().atMost(SESSION_TIMEOUT.multipliedBy(2)).until(() -> !isLocked(key));
		assertThat(caller.heldLocks()).isEmpty();
	}

	/**
	 * A holder behind the hung server hears of its loss when Curator declares the session
	 * lost: a read timeout after the last answer, then a session timeout; closing the
	 * lost handle fails within the connection timeout, told with the key; the server
	 * expires the session and its node, and once it answers again the same lock takes the
	 * key and leaves nothing behind.
	 */
	@Test
	void holderBehindAHungServerHearsOfItsLossAndTakesTheKeyAgainOnceItAnswers() throws Exception {
		TcpProxy proxy = this.closeables.add(TcpProxy.start(zooKeeper.port()));
		DefaultDistributeLock holderLock = lockThrough(proxy, SESSION_TIMEOUT);
		String key = "hung.holder." + System.nanoTime();
		LockHandle held = holderLock.tryAcquire(LockRequest.of(key)).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		held.onLost((handle) -> lost.countDown());
		proxy.blackhole();
		long start = System.nanoTime();
		try {
			assertThat(lost.await(SESSION_TIMEOUT.multipliedBy(4).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			long lossMillis = millisSince(start);
			assertThat(held.isHeld()).isFalse();
			long releaseStart = System.nanoTime();
			Exception releaseFailure = null;
			try {
				held.close();
			}
			catch (DistributeLockException ex) {
				releaseFailure = ex;
			}
			long releaseMillis = millisSince(releaseStart);
			logger.info("ZooKeeper: a holder behind a hung server heard of its loss after " + lossMillis
					+ " ms (session timeout " + SESSION_TIMEOUT.toMillis() + " ms); its release then ended after "
					+ releaseMillis + " ms with " + releaseFailure);
			assertThat(lossMillis).isLessThanOrEqualTo(READ_TIMEOUT.plus(SESSION_TIMEOUT).plus(SLACK).toMillis());
			assertThat(releaseMillis).isLessThanOrEqualTo(CONNECTION_TIMEOUT.plus(SLACK).toMillis());
			if (releaseFailure != null) {
				assertThat(releaseFailure).hasMessageContaining(key).hasMessageContaining("zookeeper");
			}
			await().atMost(SESSION_TIMEOUT.multipliedBy(2)).until(() -> !isLocked(key));
		}
		finally {
			proxy.heal();
		}
		long healed = System.nanoTime();
		try (LockHandle again = holderLock.tryAcquire(LockRequest.of(key).withWaitTime(SESSION_TIMEOUT.multipliedBy(4)))
			.orElseThrow()) {
			logger.info("ZooKeeper: the holder took the key again " + millisSince(healed) + " ms after the server "
					+ "answered again");
			assertThat(again.isHeld()).isTrue();
			assertThat(isLocked(key)).isTrue();
		}
		await().atMost(SESSION_TIMEOUT.multipliedBy(2)).until(() -> !isLocked(key));
		assertThat(holderLock.heldLocks()).isEmpty();
	}

	private DefaultDistributeLock lockThrough(TcpProxy proxy, Duration sessionTimeout) throws Exception {
		CuratorFramework client = this.closeables
			.add(EmbeddedZooKeeper.newQuickClient("127.0.0.1:" + proxy.port(), sessionTimeout));
		return this.closeables.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(client)),
				Duration.ofSeconds(30), false, LockEventListener.NONE, null));
	}

	private static boolean isLocked(String key) throws Exception {
		return zooKeeper.store().checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

}
