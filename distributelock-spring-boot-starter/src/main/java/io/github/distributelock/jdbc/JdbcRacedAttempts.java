package io.github.distributelock.jdbc;

import java.sql.SQLException;
import java.util.function.Supplier;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DuplicateKeyException;

/**
 * The rule every lock attempt of the JDBC backend follows, plain or of another kind, when
 * its statements meet a concurrent one: they were rolled back and changed nothing, so the
 * attempt is made again at once, up to {@link #ATTEMPTS} times. Such a race is two first
 * inserts of the key's row at once (H2's {@code MERGE} lets both try), a deadlock (on
 * MariaDB and MySQL, attempts on neighbouring keys meet over the gap of a row the purge
 * deleted), or a purge that deleted the row before it was locked; the next try finds the
 * row, or inserts it anew, so that a caller that does not wait is not refused a free key.
 * Not after the database's lock-wait timeout, which would pass again, past the caller's
 * deadline. The renewals and releases of the other kinds, which lock the key's row and
 * then rows of its holders, are made again after a deadlock too.
 */
final class JdbcRacedAttempts {

	/**
	 * How many times one attempt is made when it races another statement: a race of the
	 * key's first insert cannot repeat, a deadlock rarely does twice. Three were too few
	 * on a loaded CI machine: on a MariaDB whose tables held the rows of many earlier
	 * tests, read, write and permit attempts on keys of their own lost three deadlocks in
	 * a row twice in 960 attempts, and were refused free keys. Those deadlocks were over
	 * the gap locks of {@code REPEATABLE READ}, which the operations of those kinds no
	 * longer take ({@link JdbcKindStatements#begin}).
	 */
	static final int ATTEMPTS = 5;

	private static final Log logger = LogFactory.getLog(JdbcRacedAttempts.class);

	private JdbcRacedAttempts() {
	}

	/**
	 * Makes {@code attempt}, again while it races another statement.
	 * @return its result, or held by another (with no lease, and for a reader or permit
	 * caller not queued) once the database's lock-wait timeout ended it or it raced
	 * {@link #ATTEMPTS} times: the engine attempts again while the caller still waits
	 */
	static AcquireResult attempt(Claim claim, Supplier<AcquireResult> attempt) {
		for (int made = 1;; made++) {
			try {
				return attempt.get();
			}
			catch (DuplicateKeyException | ConcurrencyFailureException ex) {
				if (lockWaitTimedOut(ex)) {
					// The database waited its whole lock-wait timeout for a row another
					// transaction kept (one whose client stalled, say).
					if (logger.isDebugEnabled()) {
						logger.debug("Lock '" + claim.key() + "' (" + claim.kind().tag() + ") stayed locked by another "
								+ "transaction for the database's lock-wait timeout: " + ex.getMessage());
					}
					return refused(claim);
				}
				if (logger.isDebugEnabled()) {
					logger.debug("Lock '" + claim.key() + "' (" + claim.kind().tag() + ") met a concurrent statement "
							+ "(attempt " + made + " of " + ATTEMPTS + "): " + ex.getMessage());
				}
				if (made == ATTEMPTS) {
					return refused(claim);
				}
			}
		}
	}

	/**
	 * Held by another, with no lease: rolled back, the attempt left nothing in the store,
	 * and readers and permit callers never queue on JDBC, so such a caller has no place
	 * to leave (a release to leave it would wait for the key's row once more, past the
	 * caller's deadline). A fair or write caller may have queued in an earlier attempt.
	 */
	private static AcquireResult refused(Claim claim) {
		AcquireResult refused = AcquireResult.heldByAnother(null);
		return claim.kind().shared() ? refused.notQueued() : refused;
	}

	/**
	 * Makes a renewal or release of a fair, read/write or permit lock, again while the
	 * database rolls it back for a deadlock, up to {@link #ATTEMPTS} times: like an
	 * attempt, it changed nothing, and otherwise a renewal failed (the watchdog's WARN)
	 * and a release reached its caller as a store failure, retried later, while the key
	 * stayed held. Not after the database's lock-wait timeout, which would pass again.
	 * @param operation what {@code work} does, for the log
	 * @return what {@code work} returned
	 */
	static <T> T renewalOrRelease(Claim claim, String operation, Supplier<T> work) {
		for (int made = 1;; made++) {
			try {
				return work.get();
			}
			catch (ConcurrencyFailureException ex) {
				if (made == ATTEMPTS || lockWaitTimedOut(ex)) {
					throw ex;
				}
				if (logger.isDebugEnabled()) {
					logger.debug("The " + operation + " of lock '" + claim.key() + "' (" + claim.kind().tag()
							+ ") met a concurrent statement (attempt " + made + " of " + ATTEMPTS + "): "
							+ ex.getMessage());
				}
			}
		}
	}

	/**
	 * Whether the database gave up waiting for a row lock: error 1205 on MariaDB and
	 * MySQL ({@code innodb_lock_wait_timeout}), SQLSTATE {@code 55P03} on PostgreSQL
	 * ({@code lock_timeout}), error 50200 on H2 ({@code LOCK_TIMEOUT}). Not a deadlock,
	 * which the database ends at once and which rarely repeats.
	 */
	static boolean lockWaitTimedOut(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && (sql.getErrorCode() == 1205 || "55P03".equals(sql.getSQLState())
					|| sql.getErrorCode() == 50200)) {
				return true;
			}
		}
		return false;
	}

}
