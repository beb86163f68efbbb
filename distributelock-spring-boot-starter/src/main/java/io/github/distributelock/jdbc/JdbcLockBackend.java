package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.StoreClientThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.BadSqlGrammarException;

/**
 * A {@link LockBackend} on a lock table in the application's database through JDBC: a row
 * per held lock, taken by one atomic insert-or-take-over statement, renewed and released
 * by owner-checked statements.
 * <p>
 * Leases are counted on the database clock only, so the clocks of the application's
 * instances never matter. Fencing tokens come from a database sequence (on MySQL, which
 * has none, from an {@code AUTO_INCREMENT} counter table). Every operation runs on a
 * connection of its own and is committed at once: no connection and no transaction is
 * held while a lock is held, and a crashed holder's row is simply taken over once its
 * lease has run out. On PostgreSQL a release notifies ({@code pg_notify}) and waiters are
 * woken by one {@code LISTEN}ing connection per backend; on the other databases, and on
 * PostgreSQL while that connection is down, waiters poll the row with exponential
 * back-off and jitter, as a table has no release notification.
 * <p>
 * JDBC blocks, so a statement runs on the thread of a caller that waits for it anyway
 * (the blocking API) and otherwise on a pool of {@value #STATEMENT_THREADS} threads of
 * this backend (the non-blocking API, the watchdog's renewals, background retries, and
 * every statement on H2, whose waits for a row lock an interrupt of the caller's thread
 * would end), where renewals and releases go ahead of attempts and polls.
 * <p>
 * A release keeps the row, marked free, for the {@linkplain #releasedRowRetention()
 * retention}: every later acquisition of the key then takes the row over under its row
 * lock and only then draws its fencing token (on MySQL, which draws it first, only with a
 * token larger than the row's), which is what keeps tokens in the order of acquisition (a
 * statement that inserts a new row has drawn its token before it knew it would win). Rows
 * free for longer than the retention are deleted by one of the releases, at most once per
 * retention period and instance.
 * <p>
 * Fair, read/write and permit locks ({@link LockKind}) keep the key's row as the lock of
 * the key, beside a queue, a table of readers and a table of permit slots (see
 * {@code JdbcLockKinds}).
 * <p>
 * <b>Note:</b> the lock table's name is the only text put into SQL; it must be a plain
 * identifier, optionally schema-qualified. Keys, owners and leases are statement
 * parameters.
 *
 * @since 1.0.0
 */
public class JdbcLockBackend implements LockBackend, LockStoreProbe, StoreClientThreads, AutoCloseable {

	/** The default name of the lock table. */
	public static final String DEFAULT_TABLE_NAME = "distributelock";

	/**
	 * The longest lock key, in characters, that the lock table holds on every database
	 * (on MariaDB and MySQL, 2048 bytes of UTF-8, within InnoDB's 3072-byte index limit).
	 */
	public static final int MAX_KEY_LENGTH = 512;

	/** The longest owner value, in characters, that the lock table holds. */
	public static final int MAX_OWNER_LENGTH = 255;

	/**
	 * The longest lease the lock table stores: a longer one, such as a fixed lease meant
	 * as "for ever", is stored as this long. H2 adds milliseconds to a timestamp in
	 * nanoseconds, which overflow past about 292 years into a wrong expiry, often one
	 * already past (the lock would be free while its caller holds it), and MariaDB and
	 * MySQL store no time after the year 9999.
	 * @since 1.0.0
	 */
	public static final Duration MAX_STORED_LEASE = LockBackend.LONGEST_LEASE;

	/** How long a released row is kept by default. */
	public static final Duration DEFAULT_RELEASED_ROW_RETENTION = Defaults.RELEASED_ROW_RETENTION;

	private static final Log logger = LogFactory.getLog(JdbcLockBackend.class);

	/** The threads of the pool that runs statements for callers that must not block. */
	static final int STATEMENT_THREADS = 4;

	/** A skew of the application's clock worth telling operators about. */
	private static final Duration NOTABLE_CLOCK_SKEW = Duration.ofSeconds(1);

	/**
	 * The key whose lease the health probe reads; held or not, reading it changes
	 * nothing.
	 */
	private static final String PROBE_KEY = "distributelock.probe";

	private final JdbcLockKinds kinds;

	private final JdbcKindWaits kindWaits;

	private final JdbcLockRepository repository;

	private final ReleasedRowPurge purge;

	/**
	 * Runs the statements of callers that must not block (the non-blocking API, the
	 * watchdog, background retries, waiters' polls), renewals and releases first.
	 */
	private final JdbcStatementPool statements;

	private final JdbcReleaseWaits waits;

	/** Where releases are notified, or {@code null} if they are not. */
	private final @Nullable String releaseChannel;

	/**
	 * Whether statements may run on the thread of a caller that blocks: not on H2, whose
	 * wait for a row lock an interrupt of that thread ends as a lock timeout (failing a
	 * release, and swallowing the interrupt of an acquisition).
	 */
	private final boolean onCallerThreads;

	/**
	 * Creates a backend on the table {@code distributelock}, with the dialect detected
	 * from the database.
	 * @param dataSource the application's database
	 */
	public JdbcLockBackend(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE_NAME, null, Clock.systemUTC());
	}

	/**
	 * Creates a backend that keeps released rows for
	 * {@link #DEFAULT_RELEASED_ROW_RETENTION}.
	 * @param dataSource the application's database
	 * @param tableName the lock table, a plain identifier optionally qualified by a
	 * schema; its sequence (on MySQL, its counter table) is named {@code <tableName>_seq}
	 * @param dialect the SQL dialect (one of {@link #supportedDialects()}), or
	 * {@code null} to detect it from the connection's metadata
	 * @param clock the application's clock; leases never use it, it is only compared with
	 * the database clock once, to report a skew
	 * @throws UnsupportedLockDatabaseException if the database is not supported
	 * @throws LockDialectMismatchException if the dialect is given and does not serve the
	 * database
	 * @throws IllegalArgumentException if the table name is not a plain identifier or the
	 * dialect is unknown
	 */
	public JdbcLockBackend(DataSource dataSource, String tableName, @Nullable String dialect, Clock clock) {
		this(dataSource, tableName, dialect, clock, DEFAULT_RELEASED_ROW_RETENTION);
	}

	/**
	 * Creates a backend.
	 * @param dataSource the application's database
	 * @param tableName the lock table, a plain identifier optionally qualified by a
	 * schema; its sequence (on MySQL, its counter table) is named {@code <tableName>_seq}
	 * @param dialect the SQL dialect (one of {@link #supportedDialects()}), or
	 * {@code null} to detect it from the connection's metadata
	 * @param clock the application's clock; leases never use it, it is only compared with
	 * the database clock once, to report a skew
	 * @param releasedRowRetention how long the row of a released (or expired) lock is
	 * kept before it is deleted; it must be longer than any one lock statement can stall
	 * inside the database (on MySQL, any attempt between drawing its token and its
	 * upsert), since only a statement stalled that long could still insert a token drawn
	 * before the row's last holder took it
	 * @throws UnsupportedLockDatabaseException if the database is not supported
	 * @throws LockDialectMismatchException if the dialect is given and does not serve the
	 * database; a database that cannot be reached is not checked
	 * @throws IllegalArgumentException if the table name is not a plain identifier, the
	 * dialect is unknown, or the retention is not positive
	 */
	public JdbcLockBackend(DataSource dataSource, String tableName, @Nullable String dialect, Clock clock,
			Duration releasedRowRetention) {
		this(dataSource, tableName, dialect, clock, releasedRowRetention, true);
	}

	/**
	 * Creates a backend, choosing whether releases are notified on PostgreSQL.
	 * @param dataSource the application's database
	 * @param tableName the lock table, a plain identifier optionally qualified by a
	 * schema; its sequence (on MySQL, its counter table) is named {@code <tableName>_seq}
	 * @param dialect the SQL dialect (one of {@link #supportedDialects()}), or
	 * {@code null} to detect it from the connection's metadata
	 * @param clock the application's clock; leases never use it, it is only compared with
	 * the database clock once, to report a skew
	 * @param releasedRowRetention how long the row of a released (or expired) lock is
	 * kept before it is deleted
	 * @param releaseNotifications whether, on PostgreSQL, a release notifies the channel
	 * of the lock table and waiters are woken by a {@code LISTEN}ing connection (borrowed
	 * from {@code dataSource} while this backend has waiters, and for a minute after)
	 * instead of polling; ignored on the other databases, which always poll
	 * @throws UnsupportedLockDatabaseException if the database is not supported
	 * @throws LockDialectMismatchException if the dialect is given and does not serve the
	 * database; a database that cannot be reached is not checked
	 * @throws IllegalArgumentException if the table name is not a plain identifier, the
	 * dialect is unknown, or the retention is not positive
	 * @since 1.0.0
	 */
	public JdbcLockBackend(DataSource dataSource, String tableName, @Nullable String dialect, Clock clock,
			Duration releasedRowRetention, boolean releaseNotifications) {
		this(dataSource, tableName, dialect, clock, releasedRowRetention, releaseNotifications,
				JdbcLockKinds.WAITER_LEASE);
	}

	/**
	 * With another waiter lease than {@link JdbcLockKinds#WAITER_LEASE}: a test's waiter
	 * that crashes leaves the queue sooner.
	 */
	JdbcLockBackend(DataSource dataSource, String tableName, @Nullable String dialect, Clock clock,
			Duration releasedRowRetention, boolean releaseNotifications, Duration waiterLease) {
		ReleasedRowPurge.requirePositive(releasedRowRetention);
		boolean named = dialect != null && !dialect.isBlank();
		JdbcLockDialect lockDialect = named ? JdbcLockDialect.named(dialect) : JdbcLockDialect.detect(dataSource);
		this.repository = new JdbcLockRepository(dataSource, lockDialect, tableName);
		this.purge = new ReleasedRowPurge(this.repository, releasedRowRetention);
		this.statements = new JdbcStatementPool(STATEMENT_THREADS);
		this.onCallerThreads = !lockDialect.endsLockWaitsOnInterrupt();
		this.releaseChannel = (releaseNotifications && this.repository.notifiesReleases())
				? PostgresReleaseListener.channel(this.repository.tableName()) : null;
		this.waits = new JdbcReleaseWaits(this.repository, this.statements.ordinary(),
				(this.releaseChannel != null && PostgresLockDialect.hasDriver())
						? new PostgresReleaseListener(this.repository.dataSource(), this.repository.tableName())
						: null);
		// A named dialect is checked against the database, unless it cannot be reached
		// (then the clock cannot be read either).
		if (!named || lockDialect.checkFits(dataSource)) {
			reportClockSkew(clock);
		}
		this.kinds = new JdbcLockKinds(this.repository, waiterLease);
		this.kindWaits = new JdbcKindWaits(this.kinds);
	}

	/**
	 * The SQL dialects, each with the databases it serves, such as {@code mysql} and
	 * "MySQL 8.0 or later".
	 * @return the dialects by name, in the order they are tried
	 */
	public static Map<String, String> supportedDialects() {
		return JdbcLockDialect.supported();
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
	 * How long the row of a released or expired lock is kept before it is deleted.
	 * @return the retention
	 */
	public Duration releasedRowRetention() {
		return this.purge.retention();
	}

	/**
	 * Bounds each lock statement: one that the database keeps waiting longer, such as for
	 * the row lock of a transaction whose client stalled or lost its network, fails with
	 * a timeout, and the call that sent it goes on as after any store error (an
	 * acquisition attempts again until its wait time ends, a release is retried in the
	 * background) instead of hanging as long as that transaction lives: without a bound
	 * that is as long as the database waits for a row lock (on PostgreSQL, by default,
	 * until the transaction ends; on MariaDB and MySQL, 50 s). A caller with less time
	 * left waits for a row until its deadline only (not on MySQL); another call can
	 * overrun its wait by up to this timeout. Default {@link Defaults#STATEMENT_TIMEOUT}.
	 * <p>
	 * Rounded up to whole seconds, as JDBC's statement timeouts are. On PostgreSQL the
	 * statement is {@linkplain java.sql.Statement#cancel() cancelled} at the timeout; on
	 * MariaDB and MySQL the driver's {@link java.sql.Statement#setQueryTimeout} ends it.
	 * Neither reaches a server that does not answer at all, so without the driver's
	 * socket timeout a round trip of a lock operation (a statement, a commit, a change of
	 * the commit mode) still unanswered at twice the timeout has its
	 * {@linkplain java.sql.Connection#abort connection aborted} (on MariaDB this ends the
	 * call only where the server still answers new connections): set the driver's socket
	 * timeout to bound each round trip. Not applied on H2, which ends a wait for a row
	 * lock at its own {@code LOCK_TIMEOUT} (2 s by default) and answers it as a lock held
	 * by another.
	 * <p>
	 * Logs a warning if statements are bounded on this database and the timeout is zero
	 * or not shorter than the {@linkplain #releasedRowRetention() released-row
	 * retention}: fencing tokens stay in the order of acquisition only if no statement
	 * can stall for a whole retention.
	 * @param timeout the longest a lock statement may run, or zero for as long as the
	 * database lets it
	 * @throws IllegalArgumentException if the timeout is negative
	 * @since 1.0.0
	 */
	public void setStatementTimeout(Duration timeout) {
		this.repository.statementTimeout(timeout);
		warnIfStatementsCanOutstayTheRetention();
	}

	private void warnIfStatementsCanOutstayTheRetention() {
		if (this.repository.dialect().statementBound() == JdbcLockDialect.StatementBound.NONE) {
			// H2 ends every wait for a row lock at its own lock timeout, 2 s by default.
			return;
		}
		Duration timeout = statementTimeout();
		Duration retention = releasedRowRetention();
		if (timeout.isZero() || timeout.compareTo(retention) >= 0) {
			logger.warn("The JDBC lock statement timeout (distributelock.jdbc.statement-timeout) is "
					+ (timeout.isZero() ? "0, no bound," : seconds(timeout) + ",")
					+ " not shorter than the released-row retention (distributelock.jdbc.released-row-retention) of "
					+ (retention.toMillis() % 1000 == 0 ? seconds(retention) : retention.toMillis() + " ms")
					+ " on table " + tableName() + ": a lock statement stalled in the database for a whole retention "
					+ "could take a key with a fencing token lower than one already handed out. Set the statement "
					+ "timeout well below the retention (the defaults are " + seconds(Defaults.STATEMENT_TIMEOUT)
					+ " and " + seconds(Defaults.RELEASED_ROW_RETENTION) + "), or lengthen the retention.");
		}
	}

	private static String seconds(Duration duration) {
		return duration.toSeconds() + " s";
	}

	/**
	 * The longest one lock statement may run, in whole seconds.
	 * @return the statement timeout, zero if statements are not bounded
	 * @see #setStatementTimeout(Duration)
	 */
	public Duration statementTimeout() {
		return this.repository.statementTimeout();
	}

	/**
	 * Deletes the rows of locks released, or left to expire, longer ago than the
	 * {@linkplain #releasedRowRetention() retention}. Releases call it once per retention
	 * period; call it yourself to empty the table sooner.
	 * @return how many rows were deleted
	 */
	public int deleteReleasedRows() {
		return this.purge.deleteNow();
	}

	/**
	 * Creates the lock table and its sequence (on MySQL, its counter table) unless they
	 * exist, with the dialect's script
	 * {@code io/github/distributelock/jdbc/<dialect>/schema.sql}.
	 */
	public void createSchema() {
		this.repository.createSchema();
	}

	/**
	 * Checks, for a lock table used without shards, that its database records no list of
	 * several shards in the table named as the lock table with the suffix
	 * {@code _shards}: a sharded lock table keeps most keys in other databases, where
	 * this backend's locks would not exclude their holders. One query; a database without
	 * that table records no list, and one that cannot be reached is not checked (a WARN
	 * says so). Not for the shards of a {@link ShardedJdbcLockBackend}, whose builder
	 * checks the list itself.
	 * @throws LockShardsChangedException if the database records a list of several
	 * shards, with no {@linkplain LockShardsChangedException#getShards() shards} and the
	 * recorded list
	 * @since 1.0.0
	 */
	public void checkNoShardList() {
		JdbcLockShardCheck.checkWithoutShards(shardRecord());
	}

	/**
	 * Whether releases notify waiters through PostgreSQL's {@code LISTEN}/{@code NOTIFY}.
	 * @return whether waiters are woken by notifications rather than by polling
	 * @since 1.0.0
	 */
	public boolean notifiesReleases() {
		return this.releaseChannel != null;
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		requireStorable(claim.key(), MAX_KEY_LENGTH, "lock key");
		requireStorable(claim.owner(), MAX_OWNER_LENGTH, "owner");
		JdbcKindMarkers.requireUnreserved(claim.owner());
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE) {
			return run(claim, () -> this.kinds.acquire(claim, leaseMillis(lease)));
		}
		return run(claim, () -> {
			// Recorded before the statement, so that the wait after it misses no
			// notification.
			Object hint = this.waits.hint();
			// An attempt that raced another statement answers without the hint: the row
			// was not marked as waited for, so its release may not notify; poll.
			return JdbcRacedAttempts.attempt(claim, () -> {
				AcquireResult result = this.repository.acquire(claim, leaseMillis(lease));
				return (result.acquired() || hint == null) ? result
						: AcquireResult.heldByAnother(result.holderLeaseRemaining(), hint);
			});
		});
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE || JdbcKindMarkers.isReserved(claim.owner())) {
			return runAhead(claim, () -> this.kinds.renew(claim, leaseMillis(lease)));
		}
		return runAhead(claim, () -> this.repository.renew(claim.key(), claim.owner(), leaseMillis(lease)));
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE || JdbcKindMarkers.isReserved(claim.owner())) {
			return releaseKind(claim);
		}
		String key = claim.key();
		if (this.repository.dialect().unstorable(key) != null
				|| this.repository.dialect().unstorable(claim.owner()) != null) {
			// Refused by tryAcquire, so never stored: there is nothing to release.
			return CompletableFuture.completedFuture(false);
		}
		String channel = this.releaseChannel;
		return runAhead(claim, () -> {
			boolean released = (channel != null) ? this.repository.releaseNotifying(key, claim.owner(), channel)
					: this.repository.release(key, claim.owner());
			this.purge.afterRelease(key);
			return released;
		});
	}

	/**
	 * Completes when the key's release is notified (PostgreSQL, while the backend's
	 * {@code LISTEN}ing connection is up; the row is also read every second in case the
	 * releasing instance does not notify), or when polling the row finds it gone or its
	 * lease run out (the other databases, and PostgreSQL while nobody listens: an
	 * exponential back-off from 5 ms to 200 ms with jitter, so that waiters of several
	 * instances spread out), or at the deadline. No thread waits in between.
	 */
	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE) {
			return this.kindWaits.awaitTurn(claim, deadline,
					(claim.callerExecutor() != null) ? claim.callerExecutor() : this.statements.ordinary());
		}
		return this.waits.await(claim, lastAttempt, deadline);
	}

	/**
	 * Paces polling (the plain waits' and the other kinds'), and the checks of notified
	 * waits, for tests.
	 */
	void pace(Duration firstPause, Duration longestPause, Duration checkEvery) {
		this.waits.pace(firstPause, longestPause, checkEvery);
		this.kindWaits.pace(firstPause, longestPause);
	}

	/** The record of the shard list in this backend's database. */
	JdbcLockShardRecord shardRecord() {
		return new JdbcLockShardRecord(this.repository);
	}

	/** The listener of releases, if this backend has one, for tests. */
	@Nullable PostgresReleaseListener releaseListener() {
		return this.waits.listener();
	}

	/**
	 * Reads the lease of a key in the lock table, on the database clock, which changes
	 * nothing: a lock table that is missing or cannot be read fails the probe, as it
	 * fails every lock call.
	 */
	@Override
	public void probe() {
		try {
			this.repository.remainingLeaseMillis(PROBE_KEY);
		}
		catch (BadSqlGrammarException ex) {
			throw new IllegalStateException("The lock table " + tableName() + " cannot be read ("
					+ ex.getMostSpecificCause().getMessage() + "); create it with distributelock.jdbc.initialize-schema"
					+ "=always or from the schema of the JDBC backend's documentation", ex);
		}
	}

	/**
	 * The threads of the pool that runs the statements of callers that must not block
	 * deliver this backend's answers: the stages of a non-blocking call run there, and a
	 * caller that blocked there for a lock would hold one of {@value #STATEMENT_THREADS}
	 * threads that its own statements, and every renewal and release, wait for.
	 */
	@Override
	public boolean deliversAnswersOn(Thread thread) {
		return this.statements.runsOn(thread);
	}

	/**
	 * Stops the pool that runs statements for callers that must not block, and the
	 * listener of releases.
	 */
	@Override
	public void close() {
		PostgresReleaseListener listener = this.waits.listener();
		if (listener != null) {
			listener.close();
		}
		this.statements.shutdown();
	}

	/**
	 * Runs a statement on the caller's thread when it blocks anyway (unless an interrupt
	 * of that thread would end the statement's wait for a row lock), on this backend's
	 * bounded pool otherwise.
	 */
	private <T> CompletableFuture<T> run(Claim claim, Supplier<T> statement) {
		return run(claim, statement, this.statements.ordinary());
	}

	/**
	 * Runs a renewal or a release as {@link #run} does, ahead of the attempts and polls
	 * queued in the pool: behind them, it could wait past the lease it renews.
	 */
	private <T> CompletableFuture<T> runAhead(Claim claim, Supplier<T> statement) {
		Executor pool = this.statements.ahead();
		// A caller interrupted while its release waited for a pooled connection sent
		// nothing; a release must reach the store, so the pool sends it, and the caller
		// keeps its interrupt.
		return run(claim, statement, pool).exceptionallyCompose((failure) -> (notSent(failure))
				? CompletableFuture.supplyAsync(statement, pool) : CompletableFuture.failedFuture(failure));
	}

	private static boolean notSent(Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		return cause instanceof JdbcLockRepository.NotSent;
	}

	private <T> CompletableFuture<T> run(Claim claim, Supplier<T> statement, Executor pool) {
		Executor executor = (claim.callerExecutor() != null && this.onCallerThreads) ? claim.callerExecutor() : pool;
		return CompletableFuture.supplyAsync(statement, executor);
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
		// Bounded before toMillis(), which fails past Long.MAX_VALUE milliseconds.
		return Math.max(1, ((lease.compareTo(MAX_STORED_LEASE) > 0) ? MAX_STORED_LEASE : lease).toMillis());
	}

	/**
	 * Releases a fair, read/write or permit claim, or takes a waiting one out of the
	 * queue.
	 */
	private CompletionStage<Boolean> releaseKind(Claim claim) {
		if (this.repository.dialect().unstorable(claim.key()) != null
				|| this.repository.dialect().unstorable(claim.owner()) != null) {
			return CompletableFuture.completedFuture(false);
		}
		return runAhead(claim, () -> {
			boolean released = this.kinds.release(claim, this.releaseChannel);
			this.purge.afterRelease(claim.key());
			return released;
		});
	}

	private void requireStorable(String value, int maxLength, String what) {
		if (value.codePointCount(0, value.length()) > maxLength) {
			throw new IllegalArgumentException("The " + what + " is longer than the " + maxLength
					+ " characters the lock table holds: '" + value.substring(0, 40) + "...'");
		}
		String problem = this.repository.dialect().unstorable(value);
		if (problem != null) {
			throw new IllegalArgumentException(
					"The " + what + " '" + value.replace("\u0000", "\\u0000") + "' cannot be stored: " + problem);
		}
	}

	/**
	 * The defaults that are not compile-time constants, in a class of their own so that
	 * the starter's properties can read them in an application without spring-jdbc:
	 * reading them loads this small class only, while loading {@link JdbcLockBackend}
	 * itself needs spring-jdbc (its code catches spring-jdbc's exceptions).
	 *
	 * @since 1.0.0
	 */
	public static final class Defaults {

		/** How long a released row is kept by default. */
		public static final Duration RELEASED_ROW_RETENTION = Duration.ofMinutes(1);

		/**
		 * How long one lock statement may run by default: far longer than any of them
		 * takes on a database that answers, far shorter than a stalled transaction can
		 * keep a row locked.
		 */
		public static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(10);

		private Defaults() {
		}

	}

}
