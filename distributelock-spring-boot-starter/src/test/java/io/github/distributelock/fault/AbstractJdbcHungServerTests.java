package io.github.distributelock.fault;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariConfig;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A database server that is hung but connected, on each database with a port, with the
 * driver's socket timeout ({@code socketTimeout}) set and without it (the drivers'
 * default). The driver hears of nothing: a statement sent waits for the socket timeout,
 * and the end of the statement at the statement timeout does not reach the server either
 * (PostgreSQL's cancel request and MySQL's {@code KILL QUERY} go out on a connection of
 * their own into the same hung server; MariaDB's driver leaves the timeout to the
 * server). Without a socket timeout the engine aborts the connection of an operation
 * whose round trip (a statement, a commit, a change of the commit mode) has gone
 * unanswered for twice the statement timeout: pgjdbc gives the statement up once its
 * cancel request has given up too ({@code cancelSignalTimeout}). A connection taken from
 * the pool is validated, or opened, within the pool's connection timeout.
 * <p>
 * MariaDB without a socket timeout is bounded only where the server still answers new
 * connections (its commit is held, below): the driver's abort of a connection in use
 * first sends a {@code KILL} over a new connection, and then, closing the socket, reads
 * what is left on it, which waits for the socket's read lock that the statement's thread
 * holds in its read: behind a server that answers nothing at all, the abort and the
 * statement wait together until the server answers or the connection fails. The caller
 * test is not run there ({@link MariaDbHungServerWithoutSocketTimeoutTests}).
 */
abstract class AbstractJdbcHungServerTests extends AbstractHungServerTests {

	private static final Log logger = LogFactory.getLog(AbstractJdbcHungServerTests.class);

	/** The driver's {@code socketTimeout}: the longest wait for a byte of an answer. */
	private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * The statement timeout without a socket timeout: short, so that the test runs in
	 * seconds.
	 */
	private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * pgjdbc's {@code cancelSignalTimeout} (10 s by default), short so that the test runs
	 * in seconds: the longest a cancel request waits, and with it the statement it
	 * cancels, whose connection is aborted.
	 */
	private static final Duration CANCEL_SIGNAL_TIMEOUT = Duration.ofSeconds(1);

	/** Hikari's {@code connectionTimeout}: the longest wait for a connection. */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	/** The watchdog lease of the holder behind the proxy, on the database clock. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	/** The database's dialect, as {@link JdbcTestDatabase} names it. */
	protected abstract String dialect();

	/**
	 * Whether the driver's {@code socketTimeout} is set, or left at its default of none.
	 */
	protected abstract boolean socketTimeout();

	protected abstract JdbcTestDatabase database();

	@Override
	protected String backendName() {
		return "jdbc";
	}

	@Override
	protected int storePort() {
		return database().port();
	}

	@Override
	protected DefaultDistributeLock callerThrough(TcpProxy proxy) {
		return lock(through(proxy), Duration.ofSeconds(30));
	}

	@Override
	protected DefaultDistributeLock holderThrough(TcpProxy proxy) {
		return lock(through(proxy), LEASE);
	}

	@Override
	protected DefaultDistributeLock direct() {
		return lock(this.closeables.add(database().newDataSource()), Duration.ofSeconds(30));
	}

	@Override
	protected boolean isLocked(String key) {
		return database().isLocked(key);
	}

	/**
	 * A round trip into the hung server ends at the socket timeout or, without one, once
	 * its connection is aborted; the connection it runs on may first be validated or
	 * opened, up to the connection timeout.
	 */
	@Override
	protected Duration callerAllowance() {
		return roundTrip().plus(CONNECTION_TIMEOUT);
	}

	private Duration roundTrip() {
		if (socketTimeout()) {
			return SOCKET_TIMEOUT;
		}
		Duration aborted = STATEMENT_TIMEOUT.multipliedBy(2);
		return switch (dialect()) {
			case "postgresql" -> max(aborted, STATEMENT_TIMEOUT.plus(CANCEL_SIGNAL_TIMEOUT));
			// Its abort first sends a KILL over a new connection, which waits for the
			// server's greeting up to the connect timeout.
			case "mariadb" -> aborted.plus(CONNECTION_TIMEOUT);
			default -> aborted;
		};
	}

	/**
	 * The bytes of the driver's commit: MariaDB's and MySQL's as a query packet
	 * ({@code COM_QUERY}, 3), which tells it from a statement that names the commit mode.
	 */
	private byte[] commit() {
		String commit = dialect().equals("postgresql") ? "COMMIT" : (char) 3 + "COMMIT";
		return commit.getBytes(StandardCharsets.US_ASCII);
	}

	private static Duration max(Duration one, Duration other) {
		return (one.compareTo(other) >= 0) ? one : other;
	}

	/**
	 * A caller whose lock statement is answered but whose commit goes into a server that
	 * then answers nothing more (a pool that hands connections out in manual-commit mode
	 * ends every operation with a commit) fails as a caller whose statement goes into it
	 * does, told with the key and backend; the key is taken again once what the frozen
	 * commit wrote has run out.
	 */
	@Test
	void callerWhoseCommitGoesIntoAHungServerFailsByItsBound() throws Exception {
		TcpProxy proxy = this.closeables.add(TcpProxy.start(storePort()));
		DefaultDistributeLock caller = lock(through(proxy, (config) -> config.setAutoCommit(false)), LEASE);
		String key = "hung.commit." + System.nanoTime();
		caller.tryAcquire(LockRequest.of(key + ".warm-up")).orElseThrow().close();
		proxy.holdNextChunkContaining(commit());
		long start = System.nanoTime();
		try {
			DistributeLockException failure = bounded(callerAllowance(), () -> {
				try {
					caller.tryAcquire(LockRequest.of(key));
					return null;
				}
				catch (DistributeLockException ex) {
					return ex;
				}
			});
			long took = millisSince(start);
			logger.info(dialect() + ", socketTimeout set: " + socketTimeout() + ": a caller whose commit went "
					+ "into a hung server ended after " + took + " ms with " + failure);
			assertThat(proxy.holding()).as("the commit held").isTrue();
			assertThat(failure).as("the caller's failure").isNotNull();
			assertThat(failure).hasMessageContaining(key).hasMessageContaining(backendName());
			assertThat(took).isLessThanOrEqualTo(callerAllowance().plus(SLACK).toMillis());
		}
		finally {
			proxy.releaseHeld();
		}
		try (LockHandle again = caller.tryAcquire(LockRequest.of(key).withWaitTime(recovery().plus(LEASE)))
			.orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
		await().atMost(storeExpiry().plus(SLACK)).until(() -> !isLocked(key));
	}

	/** The lease runs out, then the watchdog's next tick tells it. */
	@Override
	protected Duration lossBound() {
		return LEASE.plus(LEASE.dividedBy(3));
	}

	@Override
	protected Duration releaseBound() {
		return roundTrip().plus(CONNECTION_TIMEOUT);
	}

	/** The row's lease has run out by the time the loss is told. */
	@Override
	protected Duration storeExpiry() {
		return Duration.ofSeconds(1);
	}

	@Override
	protected Duration recovery() {
		return SOCKET_TIMEOUT.multipliedBy(5);
	}

	private DataSource through(TcpProxy proxy) {
		return through(proxy, (config) -> {
		});
	}

	/**
	 * A pool through the proxy; the timeouts in the URL in pgjdbc's unit, seconds, or in
	 * MariaDB's and MySQL's, milliseconds.
	 */
	private DataSource through(TcpProxy proxy, Consumer<HikariConfig> customizer) {
		JdbcTestDatabase database = database();
		boolean postgres = database.dialect().equals("postgresql");
		long unit = postgres ? 1000 : 1;
		String url = database.jdbcUrl().replace(":" + database.port() + "/", ":" + proxy.port() + "/")
				+ (database.jdbcUrl().contains("?") ? "&" : "?") + "connectTimeout="
				+ CONNECTION_TIMEOUT.toMillis() / unit
				+ (socketTimeout() ? "&socketTimeout=" + SOCKET_TIMEOUT.toMillis() / unit : "")
				+ (postgres ? "&cancelSignalTimeout=" + CANCEL_SIGNAL_TIMEOUT.toSeconds() : "");
		return this.closeables.add(database.newDataSource((config) -> {
			config.setJdbcUrl(url);
			config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
			customizer.accept(config);
		}));
	}

	private DefaultDistributeLock lock(DataSource dataSource, Duration lease) {
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(dataSource));
		if (!socketTimeout()) {
			backend.setStatementTimeout(STATEMENT_TIMEOUT);
		}
		return this.closeables.add(new DefaultDistributeLock(backend, lease, false, LockEventListener.NONE, null));
	}

}
