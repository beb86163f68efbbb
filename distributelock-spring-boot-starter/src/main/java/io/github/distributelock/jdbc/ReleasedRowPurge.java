package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Deletes the rows of locks free for longer than the retention, from one of the releases
 * of an instance at most once per retention period: the release that finds the period
 * over runs the purge after its own statement, so that it delays the release's answer by
 * one {@code DELETE} (on MariaDB and MySQL, by one short {@code DELETE} per row to
 * delete).
 */
final class ReleasedRowPurge {

	private static final Log logger = LogFactory.getLog(ReleasedRowPurge.class);

	private final JdbcLockRepository repository;

	private final Duration retention;

	/**
	 * The retention as the statements compute it: at most
	 * {@link JdbcLockBackend#MAX_STORED_LEASE}, which every database subtracts from its
	 * clock correctly (H2 overflows past about 292 years, into a time that may be ahead,
	 * which deleted the rows of held locks).
	 */
	private final long retentionMillis;

	private final long periodNanos;

	private final AtomicLong nextNanos;

	ReleasedRowPurge(JdbcLockRepository repository, Duration retention) {
		this.repository = repository;
		this.retention = retention;
		this.retentionMillis = ((retention.compareTo(JdbcLockBackend.MAX_STORED_LEASE) > 0)
				? JdbcLockBackend.MAX_STORED_LEASE : retention)
			.toMillis();
		this.periodNanos = TimeUnit.MILLISECONDS.toNanos(this.retentionMillis);
		this.nextNanos = new AtomicLong(System.nanoTime() + this.periodNanos);
	}

	/** Checks a retention before anything reaches the database. */
	static void requirePositive(Duration retention) {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("The released-row retention must be positive, but is " + retention);
		}
	}

	Duration retention() {
		return this.retention;
	}

	/** Deletes the rows free for longer than the retention now. */
	int deleteNow() {
		return this.repository.purge(this.retentionMillis);
	}

	/**
	 * Deletes them if this instance's period is over, after the release of {@code key}.
	 */
	void afterRelease(String key) {
		long due = this.nextNanos.get();
		long now = System.nanoTime();
		if (now - due < 0 || !this.nextNanos.compareAndSet(due, now + this.periodNanos)) {
			return;
		}
		try {
			int deleted = deleteNow();
			if (logger.isDebugEnabled()) {
				logger.debug("Deleted " + deleted + " lock rows free for longer than " + this.retentionMillis
						+ " ms from " + this.repository.tableName());
			}
		}
		catch (RuntimeException ex) {
			// The release itself succeeded; the rows are only deleted later.
			logger.warn("Could not delete the free lock rows of " + this.repository.tableName() + " after releasing '"
					+ key + "'; a later release tries again", ex);
		}
	}

}
