package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import javax.sql.DataSource;

import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@link JdbcLockRegistry} over its {@link DefaultLockRepository},
 * with their defaults (a 10 s time to live, retries every 100 ms while waiting, a lock
 * cache of 100,000 keys).
 */
public final class SpringIntegrationJdbcLibrary implements LockLibrary {

	/** What this adapter runs. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("Spring Integration",
			"`new JdbcLockRegistry(new DefaultLockRepository(dataSource))` with a `DataSourceTransactionManager`, "
					+ "on HikariCP (at most 8 connections), one registry shared by the JVM's threads",
			"its defaults: time to live 10 s, waiting retries every 100 ms (`idleBetweenTries`), a cache of 256 "
					+ "locks; the JVM's threads queue on a local lock first",
			"`registry.obtain(key).tryLock(wait, MILLISECONDS)`; unlock `unlock()`; uncontended `lock()`");

	private final DefaultLockRepository repository;

	private final JdbcLockRegistry registry;

	private final AutoCloseable pool;

	public SpringIntegrationJdbcLibrary(DataSource dataSource, AutoCloseable pool) {
		this.pool = pool;
		this.repository = new DefaultLockRepository(dataSource);
		this.repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
		this.repository.afterPropertiesSet();
		this.repository.afterSingletonsInstantiated();
		this.registry = new JdbcLockRegistry(this.repository);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void lockAndUnlock(String key) {
		Lock lock = this.registry.obtain(key);
		lock.lock();
		lock.unlock();
	}

	@Override
	public void close() throws Exception {
		this.repository.close();
		this.pool.close();
	}

}
