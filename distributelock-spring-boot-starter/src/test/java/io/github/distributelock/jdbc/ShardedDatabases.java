package io.github.distributelock.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Starts the databases of a sharded lock table in parallel, one server each, and stops
 * them all, also when one failed to start.
 */
final class ShardedDatabases {

	private ShardedDatabases() {
	}

	static List<JdbcTestDatabase> start(String... dialects) {
		List<CompletableFuture<JdbcTestDatabase>> starting = new ArrayList<>();
		for (String dialect : dialects) {
			starting.add(CompletableFuture.supplyAsync(() -> JdbcTestDatabase.start(dialect)));
		}
		List<JdbcTestDatabase> started = new ArrayList<>();
		RuntimeException failure = null;
		for (CompletableFuture<JdbcTestDatabase> database : starting) {
			try {
				started.add(database.join());
			}
			catch (CompletionException ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			try {
				stop(started);
			}
			catch (Exception ex) {
				failure.addSuppressed(ex);
			}
			throw failure;
		}
		return List.copyOf(started);
	}

	static void stop(List<JdbcTestDatabase> databases) throws Exception {
		Exception failure = null;
		for (JdbcTestDatabase database : databases) {
			try {
				database.close();
			}
			catch (Exception ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
