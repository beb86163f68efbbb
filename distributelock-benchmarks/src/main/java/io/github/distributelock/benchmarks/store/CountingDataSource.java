package io.github.distributelock.benchmarks.store;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

/**
 * Wraps a {@link DataSource} so that every statement executed and every commit or
 * rollback through it is counted: what a database lock costs in round trips.
 */
public final class CountingDataSource {

	private final AtomicLong statements = new AtomicLong();

	private final AtomicLong commits = new AtomicLong();

	/**
	 * Wraps a data source.
	 * @param dataSource the data source
	 * @return the same, counted
	 */
	public DataSource wrap(DataSource dataSource) {
		return proxy(DataSource.class, dataSource);
	}

	/** Statements executed so far. */
	public long statements() {
		return this.statements.get();
	}

	/** Commits and rollbacks so far. */
	public long commits() {
		return this.commits.get();
	}

	private <T> T proxy(Class<T> type, T target) {
		InvocationHandler handler = (proxy, method, args) -> {
			String name = method.getName();
			if (name.startsWith("execute")) {
				this.statements.incrementAndGet();
			}
			else if (name.equals("commit") || name.equals("rollback")) {
				this.commits.incrementAndGet();
			}
			Object result;
			try {
				result = method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
			if (result instanceof Connection connection && method.getReturnType() == Connection.class) {
				return proxy(Connection.class, connection);
			}
			if (result instanceof CallableStatement statement) {
				return proxy(CallableStatement.class, statement);
			}
			if (result instanceof PreparedStatement statement) {
				return proxy(PreparedStatement.class, statement);
			}
			if (result instanceof Statement statement) {
				return proxy(Statement.class, statement);
			}
			return result;
		};
		return type
			.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] { type }, handler));
	}

}
