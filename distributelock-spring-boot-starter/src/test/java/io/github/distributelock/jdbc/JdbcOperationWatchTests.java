package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The watch of whole operations on PostgreSQL ({@link JdbcOperationWatch}): what an
 * operation's failure tells, and which watch a connection's statements belong to.
 */
class JdbcOperationWatchTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private final JdbcStatementTimeouts timeouts = new JdbcStatementTimeouts(
			JdbcLockDialect.named("postgresql").statementBound());

	/**
	 * A statement cancelled at the timeout, then a round trip after it (a rollback)
	 * unanswered until its connection is aborted: the failure tells the abort, not only
	 * the cancel.
	 */
	@Test
	void aCancelledStatementWhoseRollbackIsAbortedTellsTheAbort() throws Exception {
		this.timeouts.timeout(TIMEOUT);
		try (HikariDataSource pool = databases.get("postgresql").newDataSource();
				Connection borrowed = pool.getConnection()) {
			assertThatExceptionOfType(JdbcStatementTimedOut.class)
				.isThrownBy(() -> this.timeouts.watched(borrowed, "a cancel, then a rollback aborted", (connection) -> {
					try (PreparedStatement ps = connection.prepareStatement("SELECT pg_sleep(10)")) {
						return this.timeouts.run(connection, ps, PreparedStatement::execute);
					}
					catch (SQLException ex) {
						// As JdbcCommits rolls back: a round trip between statements,
						// here one the server keeps past twice the timeout.
						try (Statement rollback = connection.createStatement()) {
							rollback.execute("SELECT pg_sleep(10)");
						}
						catch (SQLException rollbackFailure) {
							ex.addSuppressed(rollbackFailure);
						}
						throw ex;
					}
				}))
				.satisfies((timedOut) -> assertThat(timedOut.aborted()).as("told as aborted").isTrue());
		}
	}

	/**
	 * Two operations on one connection (a {@code SingleConnectionDataSource} shared by
	 * threads), the first ending while the second runs: no ended watch stays the
	 * connection's.
	 */
	@Test
	void operationsOfThreadsSharingAConnectionLeaveNoEndedWatch() throws Exception {
		this.timeouts.timeout(Duration.ofSeconds(30));
		try (HikariDataSource pool = databases.get("postgresql").newDataSource();
				Connection shared = pool.getConnection()) {
			CountDownLatch firstBegun = new CountDownLatch(1);
			CountDownLatch secondBegun = new CountDownLatch(1);
			CountDownLatch firstEnded = new CountDownLatch(1);
			CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> watched(shared, "first", () -> {
				firstBegun.countDown();
				await(secondBegun);
			}));
			await(firstBegun);
			CompletableFuture<Object> second = CompletableFuture.supplyAsync(() -> watched(shared, "second", () -> {
				secondBegun.countDown();
				await(firstEnded);
			}));
			first.get(10, TimeUnit.SECONDS);
			firstEnded.countDown();
			second.get(10, TimeUnit.SECONDS);
			assertThat(this.timeouts.watching(shared)).as("the connection's watch once both ended").isNull();
		}
	}

	/**
	 * Three operations on one connection, the middle one ending first, then the last,
	 * while the first still runs: the first's watch is the connection's again, or its
	 * later statements are watched apart from it while its own watch, seeing no round
	 * trip begin, aborts the shared connection at twice the timeout.
	 */
	@Test
	void aLiveOuterWatchIsRestoredPastAnEndedOne() throws Exception {
		this.timeouts.timeout(Duration.ofSeconds(30));
		try (HikariDataSource pool = databases.get("postgresql").newDataSource();
				Connection shared = pool.getConnection()) {
			CountDownLatch firstBegun = new CountDownLatch(1);
			CountDownLatch secondBegun = new CountDownLatch(1);
			CountDownLatch thirdBegun = new CountDownLatch(1);
			CountDownLatch secondMayEnd = new CountDownLatch(1);
			CountDownLatch thirdMayEnd = new CountDownLatch(1);
			CountDownLatch firstMayEnd = new CountDownLatch(1);
			CompletableFuture<JdbcOperationWatch> firstWatch = new CompletableFuture<>();
			CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> watched(shared, "first", () -> {
				firstWatch.complete(this.timeouts.watching(shared));
				firstBegun.countDown();
				await(firstMayEnd);
			}));
			await(firstBegun);
			CompletableFuture<Object> second = CompletableFuture.supplyAsync(() -> watched(shared, "second", () -> {
				secondBegun.countDown();
				await(secondMayEnd);
			}));
			await(secondBegun);
			CompletableFuture<Object> third = CompletableFuture.supplyAsync(() -> watched(shared, "third", () -> {
				thirdBegun.countDown();
				await(thirdMayEnd);
			}));
			await(thirdBegun);
			secondMayEnd.countDown();
			second.get(10, TimeUnit.SECONDS);
			thirdMayEnd.countDown();
			third.get(10, TimeUnit.SECONDS);
			JdbcOperationWatch restored = this.timeouts.watching(shared);
			firstMayEnd.countDown();
			first.get(10, TimeUnit.SECONDS);
			assertThat(restored).as("the connection's watch while the first operation still runs")
				.isSameAs(firstWatch.get(10, TimeUnit.SECONDS));
		}
	}

	private Object watched(Connection connection, String task, Runnable work) {
		try {
			return this.timeouts.watched(connection, task, (watchedConnection) -> {
				work.run();
				return task;
			});
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
