package io.github.distributelock.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.namedparam.AbstractSqlParameterSource;
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

	/** The folder of the statements every dialect shares. */
	private static final String SHARED = "shards";

	private static final Pattern STATEMENT_END = Pattern.compile(";[ \\t]*$", Pattern.MULTILINE);

	private final String name;

	private final String sql;

	private final ParsedSql parsedSql;

	/** The statement as written, with its named parameters. */
	private final String namedSql;

	/**
	 * The name of the parameter of each {@code ?} of {@link #sql}, in order: read once,
	 * so that a statement's arguments are looked up in its values directly. Building them
	 * through a {@link MapSqlParameterSource}, which copies the values into hash maps,
	 * and iterating over the values to look for lists, allocated 1.1 of the 5.1 KB that a
	 * PostgreSQL acquisition and release allocated in this backend.
	 */
	private final String[] parameterNames;

	private LockStatement(String name, String namedSql) {
		this.name = name;
		this.namedSql = namedSql;
		this.parsedSql = NamedParameterUtils.parseSqlStatement(namedSql);
		this.sql = NamedParameterUtils.substituteNamedParameters(this.parsedSql, null);
		this.parameterNames = parameterNames(this.parsedSql);
	}

	/**
	 * The parameters as Spring binds them, each occurrence in order: read from the values
	 * it binds for a source that answers each name with the name, marked.
	 */
	private static String[] parameterNames(ParsedSql parsedSql) {
		Object[] marked = NamedParameterUtils.buildValueArray(parsedSql, new AbstractSqlParameterSource() {

			@Override
			public boolean hasValue(String paramName) {
				return true;
			}

			@Override
			public Object getValue(String paramName) {
				return new ParameterName(paramName);
			}

		}, null);
		return Arrays.stream(marked).map((name) -> ((ParameterName) name).name()).toArray(String[]::new);
	}

	/** A parameter's name as the value bound for it, to read where Spring binds it. */
	private record ParameterName(String name) {
	}

	static LockStatement load(JdbcLockDialect dialect, String file, String tableName) {
		return single(loadAll(dialect, file, tableName), dialect.name(), file);
	}

	/**
	 * A statement every dialect shares, from the folder {@value #SHARED}.
	 */
	static LockStatement loadShared(String file, String tableName) {
		return single(parse(SHARED, file, tableName), SHARED, file);
	}

	private static LockStatement single(List<LockStatement> statements, String folder, String file) {
		if (statements.size() != 1) {
			throw new IllegalStateException(
					folder + "/" + file + " holds " + statements.size() + " statements where one is expected");
		}
		return statements.get(0);
	}

	/**
	 * The statements of a resource, in order: a statement ends with a semicolon at the
	 * end of a line.
	 */
	static List<LockStatement> loadAll(JdbcLockDialect dialect, String file, String tableName) {
		return parse(dialect.name(), file, tableName);
	}

	private static List<LockStatement> parse(String folder, String file, String tableName) {
		// The header comments tell readers of the file what the statements do; the
		// database does not need them.
		String text = text(resource(folder, file), tableName).lines()
			.filter((line) -> !line.stripLeading().startsWith("--"))
			.collect(Collectors.joining("\n"));
		return Arrays.stream(STATEMENT_END.split(text))
			.map(String::strip)
			.filter((statement) -> !statement.isEmpty())
			.map((statement) -> new LockStatement(folder + "/" + file, statement))
			.toList();
	}

	/** Whether the dialect has a resource of that name. */
	static boolean exists(JdbcLockDialect dialect, String file) {
		return resource(dialect.name(), file).exists();
	}

	/**
	 * The text of a dialect's resource with the table and sequence (or counter table)
	 * names put in.
	 */
	static String text(JdbcLockDialect dialect, String file, String tableName) {
		return text(resource(dialect.name(), file), tableName);
	}

	/** The text of a shared resource with the table names put in. */
	static String sharedText(String file, String tableName) {
		return text(resource(SHARED, file), tableName);
	}

	private static String text(Resource resource, String tableName) {
		try {
			String template = StreamUtils.copyToString(resource.getInputStream(), StandardCharsets.UTF_8);
			return template.replace("${table}", tableName)
				.replace("${sequence}", sequenceName(tableName))
				.replace("${shards}", shardsTableName(tableName));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + resource, ex);
		}
	}

	private static Resource resource(String folder, String file) {
		return new ClassPathResource(folder + "/" + file, LockStatement.class);
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

	/** The table that records the shard list in each database of a sharded lock table. */
	static String shardsTableName(String tableName) {
		return tableName + "_shards";
	}

	/**
	 * This statement with its text changed by {@code edit}, under the same name: the
	 * variants of {@link JdbcRowLockWaits}, made once from fixed texts.
	 */
	LockStatement edited(UnaryOperator<String> edit) {
		return new LockStatement(this.name, edit.apply(this.namedSql));
	}

	/** The statement's resource, such as {@code postgresql/acquire.sql}, for messages. */
	String name() {
		return this.name;
	}

	/** The statement with a {@code ?} for each parameter. */
	String sql() {
		return this.sql;
	}

	/**
	 * The statement with a {@code ?} for each value: a parameter given a list has one
	 * {@code ?} per element, or per column of an element given as an {@code Object[]}
	 * ({@code (?, ?)}), as {@code NamedParameterJdbcTemplate} expands an {@code IN} list.
	 */
	String sql(Map<String, ?> values) {
		return hasList(values)
				? NamedParameterUtils.substituteNamedParameters(this.parsedSql, new MapSqlParameterSource(values))
				: this.sql;
	}

	/**
	 * The values of the parameters in the order of the {@code ?}s of {@link #sql(Map)}.
	 */
	Object[] arguments(Map<String, ?> values) {
		if (!hasList(values)) {
			Object[] arguments = new Object[this.parameterNames.length];
			for (int i = 0; i < arguments.length; i++) {
				String parameter = this.parameterNames[i];
				Object value = values.get(parameter);
				if (value == null && !values.containsKey(parameter)) {
					throw new InvalidDataAccessApiUsageException(
							"No value supplied for the SQL parameter '" + parameter + "' of " + this.name);
				}
				arguments[i] = value;
			}
			return arguments;
		}
		Object[] arguments = NamedParameterUtils.buildValueArray(this.parsedSql, new MapSqlParameterSource(values),
				null);
		List<Object> flat = new ArrayList<>();
		for (Object argument : arguments) {
			if (argument instanceof Iterable<?> list) {
				for (Object element : list) {
					if (element instanceof Object[] columns) {
						flat.addAll(Arrays.asList(columns));
					}
					else {
						flat.add(element);
					}
				}
			}
			else {
				flat.add(argument);
			}
		}
		return flat.toArray();
	}

	/**
	 * Whether a parameter of this statement is given a list: looked up by name, as
	 * iterating over the values allocated an iterator and an entry per value.
	 */
	private boolean hasList(Map<String, ?> values) {
		for (String parameter : this.parameterNames) {
			if (values.get(parameter) instanceof Iterable<?>) {
				return true;
			}
		}
		return false;
	}

	@Override
	public String toString() {
		return this.sql;
	}

}
