package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import javax.sql.DataSource;

import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * ShedLock's JDBC provider ({@link JdbcTemplateLockProvider}) configured as its
 * documentation shows, with the database's time. ShedLock has no waiting: a held lock is
 * refused at once, so the contended runs retry every millisecond, the tightest loop a
 * user would write.
 */
public final class ShedLockLibrary implements LockLibrary {

	/** What this adapter runs. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("ShedLock",
			"`new JdbcTemplateLockProvider(Configuration.builder().withJdbcTemplate(...).usingDbTime().build())` on "
					+ "HikariCP (at most 8 connections), as its documentation shows",
			"`lockAtMostFor` 30 s, `lockAtLeastFor` 0; ShedLock cannot wait, so the harness retries every 1 ms",
			"`provider.lock(new LockConfiguration(now, key, 30 s, 0))`; unlock `SimpleLock.unlock()`");

	private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(30);

	private final JdbcTemplateLockProvider provider;

	private final AutoCloseable pool;

	public ShedLockLibrary(DataSource dataSource, AutoCloseable pool) {
		this.pool = pool;
		this.provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(dataSource))
			.usingDbTime()
			.build());
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		long deadline = System.nanoTime() + wait.toNanos();
		while (true) {
			Optional<SimpleLock> lock = this.provider
				.lock(new LockConfiguration(Instant.now(), key, LOCK_AT_MOST_FOR, Duration.ZERO));
			if (lock.isPresent()) {
				return lock.get()::unlock;
			}
			if (System.nanoTime() - deadline >= 0) {
				return null;
			}
			Thread.sleep(1);
		}
	}

	@Override
	public void close() throws Exception {
		this.pool.close();
	}

}
