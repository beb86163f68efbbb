package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Bad input through the public API on each store: every one is refused with a clear error
 * or handled as an ordinary key, and nothing is left locked, as read from the store
 * itself.
 */
class BadInputFaultTests {

	/** Keys that break naive Lua, SQL, path or line-based protocols. */
	private static final List<String> HOSTILE_KEYS = List.of("it's a \"quoted\" key", "x'; DROP TABLE t; --", "a;b",
			"a/b/c", "../..", "..", "line\nbreak", "\u540d\u524d\ud83d\udd12", "redis.call('DEL', KEYS[1])",
			"]] .. redis.call('FLUSHALL') .. [[", "%_*?[]{}", "\u0000nul");

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("h2", "postgresql");

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/** A lock on the clients that read the store, as each store starts with no lock. */
	private DefaultDistributeLock lock(String backend) {
		LockBackend lockBackend = switch (backend) {
			case "redis" -> new RedisLockBackend(redis.store().getRequiredConnectionFactory());
			case "zookeeper" -> new ZooKeeperLockBackend(zooKeeper.store());
			case "h2", "postgresql" -> new JdbcLockBackend(databases.get(backend).inspection());
			default -> throw new IllegalArgumentException(backend);
		};
		return this.closeables.add(new DefaultDistributeLock(lockBackend));
	}

	/**
	 * The keys the store itself holds locks for now, read without the API: Redis keys
	 * {@code lock:*}, the nodes under {@code /locks}, the rows whose lease still runs.
	 */
	private static List<String> lockedInStore(String backend) throws Exception {
		return switch (backend) {
			case "redis" ->
				redis.store().keys("lock:*").stream().map((lockKey) -> lockKey.substring("lock:".length())).toList();
			case "zookeeper" -> lockNodes();
			case "h2", "postgresql" -> databases.get(backend).lockedKeys();
			default -> throw new IllegalArgumentException(backend);
		};
	}

	private static List<String> lockNodes() throws Exception {
		try {
			return zooKeeper.store()
				.getChildren()
				.forPath(ZooKeeperLockBackend.DEFAULT_ROOT)
				.stream()
				.map(EmbeddedZooKeeper::lockKeyOf)
				.toList();
		}
		catch (KeeperException.NoNodeException ex) {
			// The root is a container node, which the server removes once it is empty.
			return List.of();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "zookeeper", "h2", "postgresql" })
	void badArgumentsAreRefusedBeforeTheStoreIsTouched(String backend) {
		DefaultDistributeLock lock = lock(backend);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire(null, Duration.ZERO, null))
			.withMessageContaining("lockKey");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire("", Duration.ZERO, null))
			.withMessageContaining("lockKey");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire(" \t", Duration.ZERO, null))
			.withMessageContaining("lockKey");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire("k", Duration.ofMillis(-1), null))
			.withMessageContaining("waitTime");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> lock.tryAcquire("k", null, null))
			.withMessageContaining("waitTime");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire("k", Duration.ZERO, Duration.ZERO))
			.withMessageContaining("leaseTime");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire("k", Duration.ZERO, Duration.ofMillis(-5)))
			.withMessageContaining("leaseTime");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> lock.tryLock("k", null, 0, 1000))
			.withMessageContaining("lockValue");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> lock.tryLock("k", "v", -1, 1000))
			.withMessageContaining("waitTime");
		assertThat(lock.heldLocks()).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "zookeeper", "h2", "postgresql" })
	void hostileKeysAreOrdinaryKeysThatLockExclusivelyAndLeaveNothingBehind(String backend) throws Exception {
		DefaultDistributeLock lock = lock(backend);
		DefaultDistributeLock other = lock(backend);
		for (String key : HOSTILE_KEYS) {
			Optional<LockHandle> handle;
			try {
				handle = lock.tryAcquire(key, Duration.ZERO, null);
			}
			catch (DistributeLockException ex) {
				// Only PostgreSQL refuses a key, with NUL, which its text types cannot
				// hold: clearly, and before the store is touched.
				assertThat(backend).isEqualTo("postgresql");
				assertThat(key).contains("\u0000");
				assertThat(ex).hasMessageContaining("NUL").hasCauseInstanceOf(IllegalArgumentException.class);
				assertThat(lockedInStore(backend)).as(key).isEmpty();
				continue;
			}
			try (LockHandle held = handle.orElseThrow()) {
				// Stored exactly as given, and nothing else.
				assertThat(lockedInStore(backend)).as(key).containsExactly(key);
				assertThat(acquireElsewhere(other, key)).as(key).isEmpty();
			}
			assertThat(lockedInStore(backend)).as(key).isEmpty();
			try (LockHandle again = acquireElsewhere(other, key).orElseThrow()) {
				assertThat(again.isHeld()).isTrue();
			}
			assertThat(lockedInStore(backend)).as(key).isEmpty();
		}
		assertThat(lock.heldLocks()).isEmpty();
		assertThat(other.heldLocks()).isEmpty();
	}

	private static Optional<LockHandle> acquireElsewhere(DefaultDistributeLock lock, String key) throws Exception {
		// Another thread, so the engine's reentrancy does not answer for the store.
		return CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryAcquire(key, Duration.ZERO, null);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}).get(30, TimeUnit.SECONDS);
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "zookeeper", "h2", "postgresql" })
	void tenThousandCharacterKeyIsLockedOrRefusedClearly(String backend) throws Exception {
		DefaultDistributeLock lock = lock(backend);
		String key = "k".repeat(10_000);
		try {
			try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
				assertThat(handle.isHeld()).isTrue();
			}
		}
		catch (IllegalArgumentException | DistributeLockException ex) {
			assertThat(ex.getMessage()).containsAnyOf("long", "length", "limit", "allowed");
		}
		assertThat(lock.heldLocks()).isEmpty();
		assertThat(lockedInStore(backend)).isEmpty();
		try (LockHandle handle = lock.tryAcquire("after-long-key", Duration.ZERO, null).orElseThrow()) {
			assertThat(handle.isHeld()).isTrue();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "zookeeper", "h2", "postgresql" })
	void releasingTwiceFromAnotherThreadOrWithAWrongOwnerDoesNotFreeAnotherHoldersLock(String backend)
			throws Exception {
		DefaultDistributeLock lock = lock(backend);
		DefaultDistributeLock other = lock(backend);
		String key = "release." + System.nanoTime();
		LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		CompletableFuture.runAsync(handle::close).get(30, TimeUnit.SECONDS);
		handle.close();
		assertThat(other.tryLock(key, "owner-a", 0, 30_000)).isTrue();
		assertThat(lock.releaseLock(key, "owner-b")).isFalse();
		handle.close();
		assertThat(acquireElsewhere(lock, key)).isEmpty();
		assertThat(other.releaseLock(key, "owner-a")).isTrue();
		assertThat(other.releaseLock(key, "owner-a")).isFalse();
		try (LockHandle again = acquireElsewhere(lock, key).orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "zookeeper", "h2", "postgresql" })
	void releaseWithoutAnOwnerValueIsRefusedAndLeavesTheHoldersLock(String backend) throws Exception {
		// A null value reached the store and failed there, with a NullPointerException
		// wrapped in a DistributeLockException on ZooKeeper.
		DefaultDistributeLock lock = lock(backend);
		String key = "release.no-owner." + System.nanoTime();
		assertThat(lock.tryLock(key, "owner-a", 0, 30_000)).isTrue();
		for (String missing : new String[] { null, "" }) {
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> lock.releaseLock(key, missing))
				.withMessage("lockValue must not be null or empty: it is the owner of the lock");
		}
		assertThat(lockedInStore(backend)).contains(key);
		assertThat(lock.releaseLock(key, "owner-a")).isTrue();
	}

}
