package io.github.distributelock.jdbc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A statement's arguments, looked up by the parameter names read once, are those that
 * Spring's {@code NamedParameterUtils} binds for the same values, for every statement of
 * every dialect: each occurrence of a name in the order of the text, lists expanded.
 */
class LockStatementArgumentsTests {

	private static final String ROOT = "io/github/distributelock/jdbc/";

	/** More parameters than any statement has: bounds the look-up of their names. */
	private static final int MOST_PARAMETERS = 40;

	@Test
	void everyStatementOfEveryDialectGetsTheArgumentsSpringWouldBind() throws IOException {
		List<LockStatement> statements = allStatements();
		assertThat(statements).hasSizeGreaterThan(50);
		for (LockStatement statement : statements) {
			Map<String, Object> values = valuesFor(statement);
			Object[] expected = NamedParameterUtils.buildValueArray(namedSql(statement), values);
			assertThat(statement.arguments(values)).as(statement.name() + ": " + statement.sql())
				.containsExactly(expected);
			assertThat(statement.sql(values)).isEqualTo(statement.sql());
		}
	}

	@Test
	void aNameUsedTwiceIsBoundAtEachOccurrenceAndANullValueAsNull() {
		LockStatement statement = LockStatement
			.load(JdbcLockDialect.named("postgresql"), "remaining-lease.sql", "distributelock")
			.edited((sql) -> sql + " AND lock_key <> :key AND owner IS DISTINCT FROM :owner");
		Map<String, Object> values = new HashMap<>();
		values.put("key", "k");
		values.put("owner", null);
		assertThat(statement.arguments(values)).containsExactly("k", "k", null);
	}

	@Test
	void aMissingValueIsRefusedWithTheParametersName() {
		LockStatement statement = LockStatement.load(JdbcLockDialect.named("postgresql"), "release.sql",
				"distributelock");
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> statement.arguments(Map.of("key", "k")))
			.withMessageContaining("'owner'");
	}

	@Test
	void aListIsExpandedAsSpringExpandsIt() {
		LockStatement statement = LockStatement
			.load(JdbcLockDialect.named("postgresql"), "release.sql", "distributelock")
			.edited((sql) -> sql + " AND lock_key IN (:keys)");
		Map<String, Object> values = Map.of("key", "k", "owner", "o", "keys", List.of("a", "b", "c"));
		assertThat(statement.sql(values)).endsWith("IN (?, ?, ?)");
		assertThat(statement.arguments(values)).containsExactly("k", "o", "a", "b", "c");
	}

	/**
	 * A distinct value per parameter, its names found from the refusals of a missing one.
	 */
	private static Map<String, Object> valuesFor(LockStatement statement) {
		Map<String, Object> values = new HashMap<>();
		for (int i = 0; i < MOST_PARAMETERS; i++) {
			try {
				statement.arguments(values);
				return values;
			}
			catch (InvalidDataAccessApiUsageException ex) {
				String message = ex.getMessage();
				int start = message.indexOf('\'') + 1;
				String name = message.substring(start, message.indexOf('\'', start));
				values.put(name, name + "-value-" + i);
			}
		}
		throw new IllegalStateException(statement.name() + " has more than " + MOST_PARAMETERS + " parameters");
	}

	private static String namedSql(LockStatement statement) {
		AtomicReference<String> named = new AtomicReference<>();
		statement.edited((sql) -> {
			named.set(sql);
			return sql;
		});
		return named.get();
	}

	private static List<LockStatement> allStatements() throws IOException {
		List<LockStatement> statements = new ArrayList<>();
		for (String dialect : JdbcLockDialect.supported().keySet()) {
			JdbcLockDialect lockDialect = JdbcLockDialect.named(dialect);
			for (String file : files(dialect)) {
				statements.addAll(LockStatement.loadAll(lockDialect, file, "distributelock"));
			}
		}
		for (String file : files("shards")) {
			statements.add(LockStatement.loadShared(file, "distributelock"));
		}
		return statements;
	}

	/** The statement files of a folder, but its schema scripts. */
	private static List<String> files(String folder) throws IOException {
		List<String> files = new ArrayList<>();
		String base = ROOT + folder + "/";
		for (Resource resource : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + base + "**/*.sql")) {
			String path = resource.getURL().toString();
			String file = path.substring(path.indexOf(base) + base.length());
			if (!file.contains("schema")) {
				files.add(file);
			}
		}
		return files;
	}

}
