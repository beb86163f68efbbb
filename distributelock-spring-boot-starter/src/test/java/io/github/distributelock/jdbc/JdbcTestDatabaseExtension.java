package io.github.distributelock.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * The tests' databases: one real database of each dialect ({@link JdbcTestDatabase}) for
 * the whole test run, started by the first class that asks for it and stopped when the
 * run ends, also when tests fail. The dialects an extension names are started before its
 * class, in parallel, and emptied of locks, so that a test that counts the rows sees only
 * its own; any other is started at its first {@link #get}. <pre class="code">
 * &#64;RegisterExtension
 * static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");
 * </pre> A test that shuts a database down {@link JdbcTestDatabase#start starts} its own.
 */
public final class JdbcTestDatabaseExtension implements BeforeAllCallback {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(JdbcTestDatabaseExtension.class);

	private final List<String> dialects;

	private ExtensionContext.@Nullable Store databases;

	/**
	 * @param dialects the databases to start before the class and to empty of locks
	 */
	public JdbcTestDatabaseExtension(String... dialects) {
		this.dialects = List.of(dialects);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.databases = startInParallel(context, this.dialects);
		for (String dialect : this.dialects) {
			get(dialect).deleteAllLocks();
		}
	}

	/** The database of {@code dialect}, started if no test has started it yet. */
	public JdbcTestDatabase get(String dialect) {
		if (this.databases == null) {
			throw new IllegalStateException("No databases yet: register the extension with @RegisterExtension on a "
					+ "static field, and use it from tests or @BeforeAll methods");
		}
		return this.databases.computeIfAbsent(dialect, JdbcTestDatabase::start, JdbcTestDatabase.class);
	}

	/**
	 * Starts those of the databases that no test has started yet, at once, as each takes
	 * seconds, and keeps those that started for the end of the run even when another
	 * fails.
	 * @return the store of the run's databases
	 */
	private static ExtensionContext.Store startInParallel(ExtensionContext context, List<String> dialects) {
		ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
		Map<String, CompletableFuture<JdbcTestDatabase>> starting = new LinkedHashMap<>();
		for (String dialect : dialects) {
			if (store.get(dialect) == null) {
				starting.put(dialect, CompletableFuture.supplyAsync(() -> JdbcTestDatabase.start(dialect)));
			}
		}
		List<CompletionException> failures = new ArrayList<>();
		starting.forEach((dialect, database) -> {
			try {
				store.put(dialect, database.join());
			}
			catch (CompletionException ex) {
				failures.add(ex);
			}
		});
		if (!failures.isEmpty()) {
			IllegalStateException failure = new IllegalStateException("Could not start the databases",
					failures.get(0).getCause());
			failures.subList(1, failures.size()).forEach(failure::addSuppressed);
			throw failure;
		}
		return store;
	}

	/** The arguments of {@link OnEachDatabase}: every database, shared by the run. */
	static final class EachDatabase implements ArgumentsProvider {

		@Override
		public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
				ExtensionContext context) {
			ExtensionContext.Store store = startInParallel(context, JdbcTestDatabase.DIALECTS);
			return JdbcTestDatabase.DIALECTS.stream()
				.map((dialect) -> Arguments.of(store.get(dialect, JdbcTestDatabase.class)));
		}

	}

}
