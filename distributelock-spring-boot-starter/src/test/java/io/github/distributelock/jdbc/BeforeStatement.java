package io.github.distributelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A pool whose connections, once armed, run a step of the test just before the first
 * statement prepared with a given text in its SQL, on the thread that prepares it, and
 * disarm: another party's step then happens at that exact point of a backend's sequence
 * of statements, every time.
 */
final class BeforeStatement extends DelegatingDataSource {

	/** Armed by the test; disarmed once the step ran. */
	final AtomicBoolean armed = new AtomicBoolean();

	private final String sqlPart;

	private final Runnable step;

	BeforeStatement(DataSource pool, String sqlPart, Runnable step) {
		super(pool);
		this.sqlPart = sqlPart;
		this.step = step;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = super.getConnection();
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					if (method.getName().equals("prepareStatement") && args.length == 1
							&& ((String) args[0]).contains(this.sqlPart) && this.armed.compareAndSet(true, false)) {
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
