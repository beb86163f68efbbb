package io.github.distributelock.fault;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection whose abort was started (a round trip unanswered for twice the statement
 * timeout) is never lent again, even when the round trip is answered and the operation
 * ends while the abort still runs: MariaDB's driver first sends a {@code KILL} over a new
 * connection, which may wait up to its {@code connectTimeout}, and a connection back in
 * the pool meanwhile is the next borrower's, whose work the late {@code KILL} ends (or
 * that the abort closes under it). Here every driver's abort is held up by the pool's
 * connections until the test lets it go, and the pool has one connection.
 */
class JdbcAbortedConnectionReuseTests {

	private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/** Counted down as the driver's abort is called. */
	private final CountDownLatch abortCalled = new CountDownLatch(1);

	/** Holds the driver's abort until counted down, as MariaDB's connecting KILL does. */
	private final CountDownLatch abortGoes = new CountDownLatch(1);

	/** Statements prepared on the aborted connection once its abort was called. */
	private final AtomicInteger usedAfterAbort = new AtomicInteger();

	@Test
	void aConnectionWhoseAbortStillRunsAsItsOperationEndsIsNotLentAgain() throws Exception {
		TcpProxy proxy = this.closeables.add(TcpProxy.start(database().port()));
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(slowAborts(proxy)));
		backend.setStatementTimeout(STATEMENT_TIMEOUT);
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(backend, Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		String key = "aborted.reuse." + System.nanoTime();
		lock.tryAcquire(LockRequest.of(key + ".warm-up")).orElseThrow().close();
		proxy.holdNextChunkContaining("COMMIT".getBytes(StandardCharsets.US_ASCII));
		try {
			LockHandle first = AbstractHungServerTests.bounded(STATEMENT_TIMEOUT.multipliedBy(6), () -> {
				Thread answer = new Thread(() -> {
					try {
						// The commit is answered once its abort has begun: the
						// operation ends while the abort still runs.
						if (this.abortCalled.await(10, TimeUnit.SECONDS)) {
							proxy.releaseHeld();
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				answer.start();
				try {
					return lock.tryAcquire(LockRequest.of(key)).orElse(null);
				}
				finally {
					answer.join(10_000);
				}
			});
			assertThat(this.abortCalled.getCount()).as("the abort was called").isZero();
			if (first != null) {
				first.close();
			}
			// The next operation, on the pool's only connection, while the abort runs.
			try (LockHandle next = lock.tryAcquire(LockRequest.of(key + ".next")).orElseThrow()) {
				assertThat(next.isHeld()).isTrue();
			}
			assertThat(this.usedAfterAbort).as("statements prepared on the aborted connection").hasValue(0);
		}
		finally {
			this.abortGoes.countDown();
			proxy.releaseHeld();
		}
	}

	private static JdbcTestDatabase database() {
		return databases.get("postgresql");
	}

	/**
	 * One pool connection through the proxy, in manual-commit mode so that each operation
	 * ends with a commit of its own, whose driver connections' abort waits for
	 * {@link #abortGoes}.
	 */
	private DataSource slowAborts(TcpProxy proxy) {
		JdbcTestDatabase database = database();
		String url = database.jdbcUrl().replace(":" + database.port() + "/", ":" + proxy.port() + "/");
		DriverManagerDataSource driver = new DriverManagerDataSource(url, database.username(), "");
		DelegatingDataSource slow = new DelegatingDataSource(driver) {

			@Override
			public Connection getConnection() throws SQLException {
				return slowAbort(super.getConnection());
			}

			@Override
			public Connection getConnection(String username, String password) throws SQLException {
				return slowAbort(super.getConnection(username, password));
			}

		};
		return this.closeables.add(database.newDataSource((config) -> {
			config.setDataSource(slow);
			config.setMaximumPoolSize(1);
			config.setMinimumIdle(1);
			config.setAutoCommit(false);
			config.setConnectionTimeout(5_000);
		}));
	}

	private Connection slowAbort(Connection connection) {
		AtomicBoolean aborted = new AtomicBoolean();
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(self, method, arguments) -> {
					if (method.getName().equals("abort")) {
						aborted.set(true);
						this.abortCalled.countDown();
						if (!this.abortGoes.await(30, TimeUnit.SECONDS)) {
							throw new SQLException("the test never let the abort go");
						}
					}
					else if (aborted.get() && method.getName().startsWith("prepare")) {
						this.usedAfterAbort.incrementAndGet();
					}
					try {
						return method.invoke(connection, arguments);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}
