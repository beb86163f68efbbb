package io.github.distributelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A pool whose connections, once armed, run a step of the test just before the first
 * statement prepared whose SQL matches (a text in it, or a test of its own), on the
 * thread that prepares it, and disarm: another party's step then happens at that exact
 * point of a backend's sequence of statements, every time.
 */
final class BeforeStatement extends DelegatingDataSource {

	/** Armed by the test; disarmed once the step ran. */
	final AtomicBoolean armed = new AtomicBoolean();

	private final Predicate<String> sql;

	private final Runnable step;

	BeforeStatement(DataSource pool, String sqlPart, Runnable step) {
		this(pool, (sql) -> sql.contains(sqlPart), step);
	}

	/**
	 * A pool whose step runs before the first statement that {@code sql} accepts once
	 * armed; {@code sql} is asked only while armed.
	 */
	BeforeStatement(DataSource pool, Predicate<String> sql, Runnable step) {
		super(pool);
		this.sql = sql;
		this.step = step;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = super.getConnection();
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					if (method.getName().equals("prepareStatement") && args.length == 1 && this.armed.get()
							&& this.sql.test((String) args[0]) && this.armed.compareAndSet(true, false)) {
						this.step.run();
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

}
