package io.github.distributelock.jdbc;

import java.time.Clock;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On MariaDB and MySQL the schema the backend creates indexes {@code expires_at} in the
 * lock table and the three tables of the other kinds, which the purge of released rows
 * searches by it: without the index its search reads the whole table.
 */
class JdbcLockSchemaIndexTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "mysql" })
	void everyTableThePurgeSearchesIsIndexedByItsLease(String dialect) {
		JdbcTestDatabase database = databases.get(dialect);
		String table = "schema_index_" + dialect;
		List<String> tables = List.of(table, table + "_q", table + "_h", table + "_p");
		try (HikariDataSource pool = database.newDataSource()) {
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			try {
				new JdbcLockBackend(pool, table, null, Clock.systemUTC()).createSchema();
				List<String> indexed = jdbc.queryForList("SELECT table_name FROM information_schema.statistics "
						+ "WHERE table_schema = DATABASE() AND column_name = 'expires_at' AND seq_in_index = 1 "
						+ "AND table_name IN (?, ?, ?, ?)", String.class, tables.toArray());
				assertThat(indexed).containsExactlyInAnyOrderElementsOf(tables);
			}
			finally {
				for (String created : tables) {
					jdbc.execute("DROP TABLE IF EXISTS " + created);
				}
				jdbc.execute(dialect.equals("mysql") ? "DROP TABLE IF EXISTS " + table + "_seq"
						: "DROP SEQUENCE IF EXISTS " + table + "_seq");
			}
		}
	}

}
