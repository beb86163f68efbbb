package io.github.distributelock.fault;

import java.time.Duration;
import java.util.stream.Stream;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.sql.DataSource;

/**
 * A database server that is hung but connected, on each database with a port, with the
 * driver's socket timeout ({@code socketTimeout}) set, and on PostgreSQL without it too
 * (the drivers' default). The driver hears of nothing: a statement sent waits for the
 * socket timeout, and the end of the statement at the statement timeout does not reach
 * the server either: PostgreSQL's cancel request goes out on a connection of its own into
 * the same hung server. Without a socket timeout the engine aborts the statement's
 * connection at twice the statement timeout, and pgjdbc gives the statement up once its
 * cancel request has given up too ({@code cancelSignalTimeout}). A connection taken from
 * the pool is validated, or opened, within the pool's connection timeout.
 * <p>
 * MariaDB and MySQL without a socket timeout are not bounded, and not run: MariaDB's
 * driver leaves the statement timeout to the server, and its abort of a connection in use
 * first sends a {@code KILL} over a new connection, which waits for the hung server
 * before the socket is closed; MySQL's attempt waits in {@code setAutoCommit}, a round
 * trip no statement timeout bounds.
 */
@ParameterizedClass(name = "{0}, socketTimeout set: {1}")
@MethodSource("servers")
class JdbcHungServerTests extends AbstractHungServerTests {

	/** The driver's {@code socketTimeout}: the longest wait for a byte of an answer. */
	private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * The statement timeout without a socket timeout: short, so that the test runs in
	 * seconds.
	 */
	private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * pgjdbc's {@code cancelSignalTimeout}, left at its default: the longest a cancel
	 * request waits, and with it the statement it cancels, whose connection is aborted.
	 */
	private static final Duration CANCEL_SIGNAL_TIMEOUT = Duration.ofSeconds(10);

	/** Hikari's {@code connectionTimeout}: the longest wait for a connection. */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	/** The watchdog lease of the holder behind the proxy, on the database clock. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	@Parameter(0)
	String dialect;

	/**
	 * Whether the driver's {@code socketTimeout} is set, or left at its default of none.
	 */
	@Parameter(1)
	boolean socketTimeout;

	static Stream<Arguments> servers() {
		return JdbcTestDatabase.DIALECTS.stream()
			.filter((dialect) -> !dialect.equals("h2"))
			.flatMap((dialect) -> dialect.equals("postgresql")
					? Stream.of(Arguments.of(dialect, true), Arguments.of(dialect, false))
					: Stream.of(Arguments.of(dialect, true)));
	}

	private JdbcTestDatabase database() {
		return databases.get(this.dialect);
	}

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
	 * A statement into the hung server ends at the socket timeout or, without one, once
	 * its connection is aborted; the connection it runs on may first be validated or
	 * opened, up to the connection timeout.
	 */
	@Override
	protected Duration callerAllowance() {
		return roundTrip().plus(CONNECTION_TIMEOUT);
	}

	private Duration roundTrip() {
		if (this.socketTimeout) {
			return SOCKET_TIMEOUT;
		}
		Duration aborted = STATEMENT_TIMEOUT.multipliedBy(2);
		Duration cancelGivenUp = STATEMENT_TIMEOUT.plus(CANCEL_SIGNAL_TIMEOUT);
		return (aborted.compareTo(cancelGivenUp) >= 0) ? aborted : cancelGivenUp;
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

	/**
	 * A pool through the proxy; the timeouts in the URL in pgjdbc's unit, seconds, or in
	 * MariaDB's and MySQL's, milliseconds.
	 */
	private DataSource through(TcpProxy proxy) {
		JdbcTestDatabase database = database();
		long unit = database.dialect().equals("postgresql") ? 1000 : 1;
		String url = database.jdbcUrl().replace(":" + database.port() + "/", ":" + proxy.port() + "/")
				+ (database.jdbcUrl().contains("?") ? "&" : "?") + "connectTimeout="
				+ CONNECTION_TIMEOUT.toMillis() / unit
				+ (this.socketTimeout ? "&socketTimeout=" + SOCKET_TIMEOUT.toMillis() / unit : "");
		return this.closeables.add(database.newDataSource((config) -> {
			config.setJdbcUrl(url);
			config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
		}));
	}

	private DefaultDistributeLock lock(DataSource dataSource, Duration lease) {
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(dataSource));
		if (!this.socketTimeout) {
			backend.setStatementTimeout(STATEMENT_TIMEOUT);
		}
		return this.closeables.add(new DefaultDistributeLock(backend, lease, false, LockEventListener.NONE, null));
	}

}
