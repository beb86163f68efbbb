package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DuplicateKeyException;

/**
 * A {@link LockBackend} on a lock table in the application's database through Spring's
 * {@code JdbcTemplate}: a row per held lock, taken by one atomic insert-or-take-over
 * statement, renewed and released by owner-checked statements.
 * <p>
 * Leases are counted on the database clock only, so the clocks of the application's
 * instances never matter. Fencing tokens come from a database sequence. Every statement
 * runs on a connection of its own and is committed at once: no connection and no
 * transaction is held while a lock is held, and a crashed holder's row is simply taken
 * over once its lease has run out. Waiters poll the row with exponential back-off and
 * jitter, as a table has no release notification.
 * <p>
 * <b>Note:</b> the lock table's name is the only text put into SQL; it must be a plain
 * identifier, optionally schema-qualified. Keys, owners and leases are statement
 * parameters.
 *
 * @author distributelock
 * @since 1.0.0
 */
public class JdbcLockBackend implements LockBackend {

	/** The default name of the lock table. */
	public static final String DEFAULT_TABLE_NAME = "distributelock";

	/** The longest lock key, in characters, that the lock table holds. */
	public static final int MAX_KEY_LENGTH = 512;

	/** The longest owner value, in characters, that the lock table holds. */
	public static final int MAX_OWNER_LENGTH = 255;

	private static final Log logger = LogFactory.getLog(JdbcLockBackend.class);

	private static final long FIRST_POLL_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private static final long LONGEST_POLL_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	/** A skew of the application's clock worth telling operators about. */
	private static final Duration NOTABLE_CLOCK_SKEW = Duration.ofSeconds(1);

	private final JdbcLockRepository repository;

	/**
	 * Creates a backend on the table {@code distributelock}, with the dialect detected
	 * from the database.
	 * @param dataSource the application's database
	 */
	public JdbcLockBackend(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE_NAME, null, Clock.systemUTC());
	}

	/**
	 * Creates a backend.
	 * @param dataSource the application's database
	 * @param tableName the lock table, a plain identifier optionally qualified by a
	 * schema; its sequence is named {@code <tableName>_seq}
	 * @param dialect the SQL dialect ({@code postgresql}, {@code h2} or {@code mariadb}),
	 * or {@code null} to detect it from the connection's metadata
	 * @param clock the application's clock; leases never use it, it is only compared with
	 * the database clock once, to report a skew
	 * @throws UnsupportedLockDatabaseException if the dialect is detected and the
	 * database is not supported
	 * @throws IllegalArgumentException if the table name is not a plain identifier or the
	 * dialect is unknown
	 */
	public JdbcLockBackend(DataSource dataSource, String tableName, @Nullable String dialect, Clock clock) {
		JdbcLockDialect lockDialect = (dialect != null && !dialect.isBlank()) ? JdbcLockDialect.named(dialect)
				: JdbcLockDialect.detect(dataSource);
		this.repository = new JdbcLockRepository(dataSource, lockDialect, tableName);
		reportClockSkew(clock);
	}

	@Override
	public String name() {
		return "jdbc";
	}

	/**
	 * The SQL dialect in use.
	 * @return the dialect's name, such as {@code postgresql}
	 */
	public String dialect() {
		return this.repository.dialect().name();
	}

	/**
	 * The lock table.
	 * @return the table's name
	 */
	public String tableName() {
		return this.repository.tableName();
	}

	/**
	 * Creates the lock table and its sequence unless they exist, with the dialect's
	 * script {@code io/github/distributelock/jdbc/<dialect>/schema.sql}.
	 */
	public void createSchema() {
		this.repository.createSchema();
	}

	@Override
	public AcquireResult tryAcquire(String key, String owner, Duration lease) {
		requireLength(key, MAX_KEY_LENGTH, "lock key");
		requireLength(owner, MAX_OWNER_LENGTH, "owner");
		try {
			return this.repository.acquire(key, owner, leaseMillis(lease));
		}
		catch (DuplicateKeyException | ConcurrencyFailureException ex) {
			// Another owner inserted or changed the row while this statement ran, and the
			// statement was rolled back: the lock is held, try again once it is free.
			if (logger.isDebugEnabled()) {
				logger.debug("Lock '" + key + "' was taken concurrently by another owner: " + ex.getMessage());
			}
			return AcquireResult.heldByAnother(null);
		}
	}

	@Override
	public boolean renew(String key, String owner, Duration lease) {
		return this.repository.renew(key, owner, leaseMillis(lease));
	}

	@Override
	public boolean release(String key, String owner) {
		return this.repository.release(key, owner);
	}

	/**
	 * Polls the lock's row until it is gone or its lease has run out, or {@code maxWait}
	 * passes. A table has no release notification, so the polls are paced by an
	 * exponential back-off from 5 ms to 200 ms with jitter (so that waiters of several
	 * instances spread out), and never sleep past the holder's lease.
	 */
	@Override
	public void awaitRelease(String key, Duration maxWait) throws InterruptedException {
		long deadline = System.nanoTime() + saturatedNanos(maxWait);
		long pause = FIRST_POLL_PAUSE_NANOS;
		while (true) {
			Long remainingLease = this.repository.remainingLeaseMillis(key);
			if (remainingLease == null || remainingLease <= 0) {
				return;
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return;
			}
			long jittered = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
			long untilExpiry = TimeUnit.MILLISECONDS.toNanos(remainingLease);
			// A lock table sends no release notification: back off, bounded, before the
			// next poll.
			TimeUnit.NANOSECONDS.sleep(Math.min(jittered, Math.min(left, untilExpiry)));
			pause = Math.min(pause * 2, LONGEST_POLL_PAUSE_NANOS);
		}
	}

	private void reportClockSkew(Clock clock) {
		long before = clock.millis();
		long databaseTime;
		try {
			databaseTime = this.repository.databaseTimeMillis();
		}
		catch (RuntimeException ex) {
			// Only a diagnostic: the database may come up after the application.
			logger.warn("Could not read the database clock to compare it with the application's: " + ex.getMessage());
			return;
		}
		long after = clock.millis();
		Duration skew = Duration.ofMillis(databaseTime - (before + (after - before) / 2));
		if (skew.abs().compareTo(NOTABLE_CLOCK_SKEW) > 0) {
			logger.info("The application's clock is " + skew.abs().toMillis() + " ms "
					+ ((skew.isNegative()) ? "ahead of" : "behind") + " the database clock; distributelock's "
					+ "leases use only the database clock, so locks are not affected");
		}
	}

	static Duration leaseDuration(long remainingMillis) {
		return (remainingMillis > 0) ? Duration.ofMillis(remainingMillis) : Duration.ZERO;
	}

	private static long leaseMillis(Duration lease) {
		return Math.max(1, lease.toMillis());
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

	private static void requireLength(String value, int maxLength, String what) {
		if (value.codePointCount(0, value.length()) > maxLength) {
			throw new IllegalArgumentException("The " + what + " is longer than the " + maxLength
					+ " characters the lock table holds: '" + value.substring(0, 40) + "...'");
		}
	}

}
