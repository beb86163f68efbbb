package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock table created with the plain lock's DDL alone, as before the fair, read/write
 * and permit locks (whose tables an application of plain locks does not need): the purge
 * of released rows deletes them, without failing on the missing tables of the other
 * kinds, and without a WARN at each purge.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcLockBackendPlainTableTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql", "mariadb", "mysql" })
	void releasedRowsOfATableWithoutTheTablesOfTheOtherKindsArePurgedQuietly(String dialect, CapturedOutput output)
			throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		String table = "plain_only_" + System.nanoTime();
		JdbcTemplate jdbc = database.jdbcTemplate();
		boolean mySqlFamily = dialect.equals("mariadb") || dialect.equals("mysql");
		String timestamp = switch (dialect) {
			case "h2" -> "TIMESTAMP(6) WITH TIME ZONE";
			case "postgresql" -> "TIMESTAMP WITH TIME ZONE";
			default -> "DATETIME(6)";
		};
		jdbc.execute(dialect.equals("mysql")
				? "CREATE TABLE " + table + "_seq (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE = InnoDB"
				: "CREATE SEQUENCE " + table + "_seq");
		// Without the index on expires_at that MariaDB's and MySQL's schema.sql now
		// creates, as in a table created by an older version.
		jdbc.execute("CREATE TABLE " + table + " (lock_key " + (mySqlFamily ? "VARBINARY(2048)" : "VARCHAR(512)")
				+ " NOT NULL PRIMARY KEY, owner " + (mySqlFamily ? "VARBINARY(1020)" : "VARCHAR(255)")
				+ " NOT NULL, fencing_token BIGINT NOT NULL, " + "expires_at " + timestamp + " NOT NULL, acquired_at "
				+ timestamp + " NOT NULL)");
		try (HikariDataSource pool = database.newDataSource()) {
			JdbcLockBackend backend = new JdbcLockBackend(pool, table, null, Clock.systemUTC(), Duration.ofMillis(100));
			try (DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
				lock.tryAcquire("released.first", Duration.ZERO, null).orElseThrow().close();
				await().atMost(Duration.ofSeconds(10)).until(() -> backend.deleteReleasedRows() == 1);
				assertThat(rows(jdbc, table)).isZero();
				lock.tryAcquire("released.second", Duration.ZERO, null).orElseThrow().close();
				// Purged by one of the releases once the row is older than the retention.
				await().atMost(Duration.ofSeconds(10)).until(() -> {
					lock.tryAcquire("released.third", Duration.ZERO, null).orElseThrow().close();
					return rows(jdbc, table) == 1;
				});
			}
			finally {
				backend.close();
			}
		}
		finally {
			jdbc.execute("DROP TABLE " + table);
			jdbc.execute((dialect.equals("mysql") ? "DROP TABLE " : "DROP SEQUENCE ") + table + "_seq");
		}
		assertThat(output).doesNotContain("Could not delete the free lock rows");
	}

	private static int rows(JdbcTemplate jdbc, String table) {
		Integer rows = jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
		return (rows != null) ? rows : 0;
	}

}
