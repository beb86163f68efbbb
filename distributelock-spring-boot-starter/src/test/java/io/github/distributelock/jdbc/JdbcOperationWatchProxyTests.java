package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operation borrowed through a proxy whose statements answer {@code getConnection()}
 * with the connection underneath ({@link LazyConnectionDataSourceProxy} hands out the
 * target's statements): its watch still sees each statement as a round trip of its own,
 * so an operation of several statements, each well within the timeout, is not taken for
 * one round trip unanswered for twice the timeout and aborted.
 */
class JdbcOperationWatchProxyTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	/** Rounded to whole seconds, as the backend does. */
	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	@Test
	void statementsOfAnOperationOnAProxiedConnectionAreRoundTripsOfIt() throws Exception {
		JdbcStatementTimeouts timeouts = new JdbcStatementTimeouts(
				JdbcLockDialect.named("postgresql").statementBound());
		timeouts.timeout(TIMEOUT);
		try (HikariDataSource pool = databases.get("postgresql").newDataSource();
				Connection borrowed = new LazyConnectionDataSourceProxy(pool).getConnection()) {
			// Four statements of 1.2 s each: every one within the timeout, together past
			// twice it.
			int statements = timeouts.watched(borrowed, "four statements of 1.2 s", (connection) -> {
				int run = 0;
				for (int i = 0; i < 4; i++) {
					try (PreparedStatement ps = connection.prepareStatement("SELECT pg_sleep(1.2)")) {
						timeouts.run(connection, ps, PreparedStatement::execute);
						run++;
					}
				}
				return run;
			});
			assertThat(statements).isEqualTo(4);
			assertThat(borrowed.isClosed()).isFalse();
		}
	}

}
