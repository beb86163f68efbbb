package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.LockHandle;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.core.DefaultDistributeLock;
import org.jspecify.annotations.Nullable;

/**
 * Our {@link DefaultDistributeLock}, called in one of its two styles: the original
 * starter's {@code tryLock/releaseLock} with a caller's value, or a {@link LockHandle}
 * from {@code tryAcquire} closed after use. Both take a lease renewed by the watchdog,
 * the default.
 */
public final class OursLibrary implements LockLibrary {

	/**
	 * What ours runs with on a store, for the page.
	 * @param store {@code redis}, {@code zookeeper}, {@code jdbc} or {@code memory}
	 * @param valueStyle whether it is called in the original starter's style
	 * @return the configuration
	 */
	public static LibraryConfiguration configuration(String store, boolean valueStyle) {
		String client = switch (store) {
			case "redis" -> "`new DefaultDistributeLock(new RedisLockBackend(connectionFactory))` on a Spring Data "
					+ "Redis `LettuceConnectionFactory` with Spring Boot's defaults (one shared connection)";
			case "zookeeper" -> "`new DefaultDistributeLock(new ZooKeeperLockBackend(client))` on a CuratorFramework "
					+ "built like Curator's row below, shared by the JVM's threads";
			case "jdbc" ->
				"`new DefaultDistributeLock(new JdbcLockBackend(dataSource))` on HikariCP (at most 8 " + "connections)";
			default -> "`new DefaultDistributeLock(backend)` on an in-memory `LockBackend` of the benchmarks";
		};
		String calls = valueStyle ? "`tryLock(key, value, waitMillis, -1)`; unlock `releaseLock(key, value)`"
				: "`tryAcquire(key, wait, null)`; unlock `LockHandle.close()`";
		return new LibraryConfiguration("distributelock", client,
				"the starter's defaults: a lease renewed by the watchdog, waiting woken by the store's notifications",
				calls);
	}

	private final DefaultDistributeLock lock;

	private final boolean valueStyle;

	private final AutoCloseable resources;

	private final String valuePrefix = Long.toString(System.nanoTime(), 36) + ":";

	private final AtomicLong values = new AtomicLong();

	public OursLibrary(DefaultDistributeLock lock, boolean valueStyle, AutoCloseable resources) {
		this.lock = lock;
		this.valueStyle = valueStyle;
		this.resources = resources;
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		if (this.valueStyle) {
			String value = this.valuePrefix + this.values.incrementAndGet();
			if (!this.lock.tryLock(key, value, (int) wait.toMillis(), -1)) {
				return null;
			}
			return () -> this.lock.releaseLock(key, value);
		}
		Optional<LockHandle> handle = this.lock.tryAcquire(key, wait, null);
		return handle.<Release>map((held) -> held::close).orElse(null);
	}

	@Override
	public void close() throws Exception {
		this.lock.close();
		this.resources.close();
	}

}
