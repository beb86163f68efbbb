package io.github.distributelock.benchmarks.floor;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The physical floor of a database lock: one insert that fails on a held key and one
 * owner-checked delete, each its own auto-committed statement on a pooled connection.
 * Waiting, for the contended runs only, is a 1 ms retry loop.
 */
public final class JdbcFloor implements LockLibrary {

	/** What this floor runs. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("PostgreSQL JDBC",
			"`JdbcTemplate` on HikariCP (at most 8 connections), auto-commit", "waiting retries every 1 ms",
			"`INSERT INTO floor_lock ... ON CONFLICT DO NOTHING`; unlock `DELETE ... WHERE name = ? AND owner = ?`");

	private final JdbcTemplate jdbc;

	private final AutoCloseable pool;

	private final AtomicLong owners = new AtomicLong();

	public JdbcFloor(DataSource dataSource, AutoCloseable pool) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.pool = pool;
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		String owner = Long.toString(this.owners.incrementAndGet());
		long deadline = System.nanoTime() + wait.toNanos();
		while (this.jdbc.update("INSERT INTO floor_lock (name, owner) VALUES (?, ?) ON CONFLICT DO NOTHING", key,
				owner) != 1) {
			if (System.nanoTime() - deadline >= 0) {
				return null;
			}
			// The floor has no notification to wait for: it retries every
			// millisecond, the tightest loop a user would write.
			Thread.sleep(1);
		}
		return () -> this.jdbc.update("DELETE FROM floor_lock WHERE name = ? AND owner = ?", key, owner);
	}

	@Override
	public void close() throws Exception {
		this.pool.close();
	}

}
