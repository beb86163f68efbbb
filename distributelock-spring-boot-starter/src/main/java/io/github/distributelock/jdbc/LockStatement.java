package io.github.distributelock.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.util.StreamUtils;

/**
 * One SQL statement of a dialect, read from its resource once. The lock table's name,
 * validated against a strict identifier pattern, is the only text ever put into SQL;
 * every value is a named parameter ({@code :key}, {@code :owner}, {@code :lease_ms})
 * bound as a JDBC statement parameter.
 */
final class LockStatement {

	/**
	 * A table name, optionally schema-qualified, made only of letters, digits and
	 * underscores; short enough that the sequence name ({@code
	 *
	<table>
	 * _seq}) stays within PostgreSQL's 63 characters.
	 */
	private static final Pattern TABLE_NAME = Pattern
		.compile("(?:[A-Za-z_][A-Za-z0-9_]{0,58}\\.)?[A-Za-z_][A-Za-z0-9_]{0,58}");

	private final String name;

	private final String sql;

	private final ParsedSql parsedSql;

	private LockStatement(String name, String namedSql) {
		this.name = name;
		this.parsedSql = NamedParameterUtils.parseSqlStatement(namedSql);
		this.sql = NamedParameterUtils.substituteNamedParameters(this.parsedSql, null);
	}

	static LockStatement load(JdbcLockDialect dialect, String file, String tableName) {
		String text = text(dialect, file, tableName);
		// The header comments tell readers of the file what the statement does; the
		// database does not need them.
		String statement = text.lines()
			.filter((line) -> !line.stripLeading().startsWith("--"))
			.collect(Collectors.joining("\n"))
			.strip();
		return new LockStatement(dialect.name() + "/" + file, statement);
	}

	/**
	 * The text of a dialect's resource with the table and sequence names put in.
	 */
	static String text(JdbcLockDialect dialect, String file, String tableName) {
		Resource resource = new ClassPathResource(dialect.name() + "/" + file, LockStatement.class);
		try {
			String template = StreamUtils.copyToString(resource.getInputStream(), StandardCharsets.UTF_8);
			return template.replace("${table}", tableName).replace("${sequence}", sequenceName(tableName));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + resource, ex);
		}
	}

	static String validTableName(String tableName) {
		if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
			throw new IllegalArgumentException("The lock table name '" + tableName
					+ "' is not a plain SQL identifier: use letters, digits and underscores, not starting with a "
					+ "digit, at most 59 characters, optionally after a schema name and a dot (such as "
					+ "'locks.distributelock')");
		}
		return tableName;
	}

	static String sequenceName(String tableName) {
		return tableName + "_seq";
	}

	/** The statement with a {@code ?} for each parameter. */
	/** The statement's resource, such as {@code postgresql/acquire.sql}, for messages. */
	String name() {
		return this.name;
	}

	String sql() {
		return this.sql;
	}

	/** The values of the parameters in the order of the {@code ?}s. */
	Object[] arguments(Map<String, ?> values) {
		return NamedParameterUtils.buildValueArray(this.parsedSql, new MapSqlParameterSource(values), null);
	}

	@Override
	public String toString() {
		return this.sql;
	}

}
