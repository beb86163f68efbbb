package io.github.distributelock.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Every supported database at once, started in parallel, for tests that run on each.
 */
final class JdbcTestDatabases implements AutoCloseable {

	private final Map<String, JdbcTestDatabase> databases;

	private JdbcTestDatabases(Map<String, JdbcTestDatabase> databases) {
		this.databases = databases;
	}

	static JdbcTestDatabases startAll() {
		Map<String, CompletableFuture<JdbcTestDatabase>> starting = new LinkedHashMap<>();
		for (String dialect : JdbcTestDatabase.DIALECTS) {
			starting.put(dialect, CompletableFuture.supplyAsync(() -> JdbcTestDatabase.start(dialect)));
		}
		Map<String, JdbcTestDatabase> started = new LinkedHashMap<>();
		RuntimeException failure = null;
		for (Map.Entry<String, CompletableFuture<JdbcTestDatabase>> entry : starting.entrySet()) {
			try {
				started.put(entry.getKey(), entry.getValue().join());
			}
			catch (CompletionException ex) {
				failure = (failure != null) ? failure : new IllegalStateException("Could not start the databases", ex);
				if (failure.getCause() != ex) {
					failure.addSuppressed(ex);
				}
			}
		}
		JdbcTestDatabases databases = new JdbcTestDatabases(started);
		if (failure != null) {
			try {
				databases.close();
			}
			catch (Exception ex) {
				failure.addSuppressed(ex);
			}
			throw failure;
		}
		return databases;
	}

	JdbcTestDatabase get(String dialect) {
		return this.databases.get(dialect);
	}

	@Override
	public void close() throws Exception {
		List<Exception> failures = new ArrayList<>();
		for (JdbcTestDatabase database : this.databases.values()) {
			try {
				database.close();
			}
			catch (Exception ex) {
				failures.add(ex);
			}
		}
		if (!failures.isEmpty()) {
			Exception first = failures.get(0);
			failures.subList(1, failures.size()).forEach(first::addSuppressed);
			throw first;
		}
	}

}
