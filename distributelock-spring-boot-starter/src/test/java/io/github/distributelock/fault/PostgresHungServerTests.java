package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;

/**
 * A PostgreSQL server that is hung but connected. The driver hears of nothing: a
 * statement sent waits for the driver's socket timeout ({@code socketTimeout}, none by
 * default), and the engine's cancel at the deadline goes out on a connection of its own
 * into the same hung server; a connection taken from the pool is validated, or opened,
 * within the pool's connection timeout.
 */
class PostgresHungServerTests extends AbstractHungServerTests {

	/** pgjdbc's {@code socketTimeout}: the longest wait for a byte of an answer. */
	private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(2);

	/** Hikari's {@code connectionTimeout}: the longest wait for a connection. */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	/** The watchdog lease of the holder behind the proxy, on the database clock. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	private static JdbcTestDatabase postgres() {
		return databases.get("postgresql");
	}

	@Override
	protected String backendName() {
		return "jdbc";
	}

	@Override
	protected int storePort() {
		return postgres().port();
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
		return lock(this.closeables.add(postgres().newDataSource()), Duration.ofSeconds(30));
	}

	@Override
	protected boolean isLocked(String key) {
		return postgres().isLocked(key);
	}

	/**
	 * A statement into the hung server ends at the socket timeout; the connection it runs
	 * on may first be validated or opened, up to the connection timeout.
	 */
	@Override
	protected Duration callerAllowance() {
		return SOCKET_TIMEOUT.plus(CONNECTION_TIMEOUT);
	}

	/** The lease runs out, then the watchdog's next tick tells it. */
	@Override
	protected Duration lossBound() {
		return LEASE.plus(LEASE.dividedBy(3));
	}

	@Override
	protected Duration releaseBound() {
		return SOCKET_TIMEOUT.plus(CONNECTION_TIMEOUT);
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
		return this.closeables.add(postgres().newDataSource((config) -> {
			config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port()
					+ "/postgres?connectTimeout=1&socketTimeout=" + SOCKET_TIMEOUT.toSeconds());
			config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
		}));
	}

	private DefaultDistributeLock lock(DataSource dataSource, Duration lease) {
		return this.closeables.add(new DefaultDistributeLock(this.closeables.add(new JdbcLockBackend(dataSource)),
				lease, false, LockEventListener.NONE, null));
	}

}
