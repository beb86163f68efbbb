package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Keeps a borrowed connection whose abort was started ({@link JdbcOperationWatch}) from
 * being lent again: the abort may still run when the operation ends (MariaDB's driver
 * first sends a {@code KILL} over a new connection, which may wait up to its
 * {@code connectTimeout}), and may have closed the connection under a round trip that was
 * answered, which fails nothing the pool would see. Back in the pool, the next borrower
 * would get a closed connection, or one that the late {@code KILL} ends.
 * <p>
 * From HikariCP (Boot's default pool) the connection is evicted before it is given back:
 * the pool closes it and never lends it again. Any other pool gets it back once the abort
 * is done, or at twice the statement timeout: the driver's abort marks the connection
 * closed as it begins, which a pool that checks a connection given back or lent
 * ({@code isClosed}, {@code isValid}) drops.
 */
final class AbortedConnections {

	private static final Log logger = LogFactory.getLog(AbortedConnections.class);

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			AbortedConnections.class.getClassLoader());

	/** No pool known: the abort's end is awaited. */
	static final AbortedConnections AWAITED = new AbortedConnections(null);

	private final @Nullable DataSource hikari;

	private AbortedConnections(@Nullable DataSource hikari) {
		this.hikari = hikari;
	}

	/** For the connections that {@code dataSource} lends. */
	static AbortedConnections of(DataSource dataSource) {
		return (HIKARI_PRESENT && Hikari.is(dataSource)) ? new AbortedConnections(dataSource) : AWAITED;
	}

	/**
	 * Keeps {@code connection}, whose abort was started, from being lent again, if its
	 * pool can be told.
	 * @return whether it was: otherwise the abort's end is to be awaited before the
	 * connection goes back
	 */
	boolean evict(Connection connection, String task) {
		DataSource hikari = this.hikari;
		if (hikari == null || !Hikari.lent(connection)) {
			return false;
		}
		try {
			hikari.unwrap(HikariDataSource.class).evictConnection(connection);
			return true;
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not evict the aborted connection of a lock operation (" + task + ") from the pool", ex);
			return false;
		}
	}

	/** Kept apart so that HikariCP is loaded only where it is present. */
	private static final class Hikari {

		static boolean is(DataSource dataSource) {
			try {
				return dataSource.isWrapperFor(HikariDataSource.class);
			}
			catch (SQLException ex) {
				logger.debug("Could not tell whether " + dataSource + " is a HikariCP pool", ex);
				return false;
			}
		}

		/**
		 * Whether HikariCP lent the connection itself: one a proxy wraps (Spring's
		 * {@code LazyConnectionDataSourceProxy}) is one it cannot evict.
		 */
		static boolean lent(Connection connection) {
			return connection.getClass().getName().startsWith("com.zaxxer.hikari.");
		}

	}

}
